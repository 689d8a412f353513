// Mail to people (address verification, a taken address, password reset, sign-in link), through
// a relay the operator configures. Without one, nothing is sent and sign-up is closed. Each mail
// says plainly what started it, so that a mail nobody asked for is refused rather than obeyed.
// Its words come from the catalogue, in the language of the page that asked for it (English when
// a program asked).
import { translator, type Translate } from '../i18n/format.ts';
import type { Lang } from '../i18n/languages.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

function lifeOf(t: Translate, ms: number): string {
  const hours = Math.round(ms / 3_600_000);
  return hours >= 1 ? t('duration.h', { n: hours }) : t('duration.m', { n: Math.round(ms / 60_000) });
}

export function verificationMail(to: string, links: { verify: string; refuse: string }, lifeMs: number, accountLifeMs: number, lang: Lang = 'en'): MailMessage {
  const t = translator(lang);
  return {
    to,
    subject: t('mail.verify.subject'),
    text: t('mail.verify.text', { refuse: links.refuse, verify: links.verify, life: lifeOf(t, lifeMs), accountLife: lifeOf(t, accountLifeMs) }),
  };
}

export function alreadyRegisteredMail(to: string, links: { signIn: string; forgot: string }, lang: Lang = 'en'): MailMessage {
  const t = translator(lang);
  return { to, subject: t('mail.taken.subject'), text: t('mail.taken.text', { signIn: links.signIn, forgot: links.forgot }) };
}

export function resetMail(to: string, link: string, lifeMs: number, lang: Lang = 'en'): MailMessage {
  const t = translator(lang);
  return { to, subject: t('mail.reset.subject'), text: t('mail.reset.text', { link, life: lifeOf(t, lifeMs) }) };
}

export function signInLinkMail(to: string, link: string, lifeMs: number, lang: Lang = 'en'): MailMessage {
  const t = translator(lang);
  return { to, subject: t('mail.signIn.subject'), text: t('mail.signIn.text', { link, life: lifeOf(t, lifeMs) }) };
}

// Mail to people (address verification, a taken address, password reset, sign-in link), through
// a relay the operator configures. Without one, nothing is sent and sign-up is closed. Each mail
// says plainly what started it, so that a mail nobody asked for is refused rather than obeyed.
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

function lifeOf(ms: number): string {
  const hours = Math.round(ms / 3_600_000);
  return hours >= 1 ? `${hours} hour${hours === 1 ? '' : 's'}` : `${Math.round(ms / 60_000)} minutes`;
}

export function verificationMail(to: string, links: { verify: string; refuse: string }, lifeMs: number, accountLifeMs: number): MailMessage {
  return {
    to,
    subject: 'Someone asked to create an Obscura account with this address',
    text: [
      'Someone asked to create an Obscura account with this address. It may have been you, or',
      'someone else who typed your address.',
      '',
      'If it was NOT you, refuse it here; the account is deleted at once and your address is free',
      'for you to use:',
      '',
      links.refuse,
      '',
      'If it was you, open this link in the browser you signed up with to verify the address. It',
      `works once, for ${lifeOf(lifeMs)}:`,
      '',
      links.verify,
      '',
      'Do not verify a sign-up you did not start: whoever started it knows its password and would',
      `hold an account in your name. If you do nothing, the account is deleted after ${lifeOf(accountLifeMs)}.`,
    ].join('\n'),
  };
}

export function alreadyRegisteredMail(to: string, links: { signIn: string; forgot: string }): MailMessage {
  return {
    to,
    subject: 'Your Obscura account',
    text: [
      'Someone tried to create an Obscura account with this address, which already has one.',
      '',
      `If it was you, sign in instead: ${links.signIn}`,
      `Forgot the password? Set a new one here: ${links.forgot}`,
      '',
      'If it was not you, ignore this mail: nothing was changed.',
    ].join('\n'),
  };
}

export function resetMail(to: string, link: string, lifeMs: number): MailMessage {
  return {
    to,
    subject: 'Set a new password for Obscura',
    text: [
      'Someone asked to set a new password for the Obscura account of this address.',
      '',
      `If it was you, open this link to choose one. It works once, for ${lifeOf(lifeMs)}; setting the`,
      'password signs out every browser signed in to the account:',
      '',
      link,
      '',
      'If it was not you, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}

export function signInLinkMail(to: string, link: string, lifeMs: number): MailMessage {
  return {
    to,
    subject: 'Your sign-in link for Obscura',
    text: [
      'Someone asked for a link to sign in to the Obscura account of this address.',
      '',
      `If it was you, open this link to sign in. It works once, for ${lifeOf(lifeMs)}:`,
      '',
      link,
      '',
      'If it was not you, ignore this mail: nobody is signed in without it.',
    ].join('\n'),
  };
}

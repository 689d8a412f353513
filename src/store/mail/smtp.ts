// The operator's mail relay, through nodemailer: the one outbound connection the service may
// make, and only when OBSCURA_SMTP_URL is set. Nodemailer's own logging stays off: it would
// print addresses and the relay's credentials.
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { MailMessage, Mailer } from '../../domain/mail.ts';

export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport({
    url,
    logger: false,
    // the greeting names no host of ours
    name: 'localhost',
    debug: false,
    // a relay that hangs must not hold a request's mail for long
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  } as SMTPTransport.Options);
  return {
    async send(m: MailMessage) {
      // no X-Mailer, no client host name that could say more than needed
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, xMailer: false });
    },
    close() {
      transport.close();
    },
  };
}

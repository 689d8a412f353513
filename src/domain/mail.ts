// Mail to people: the one message the service sends (the address verification), through a
// relay the operator configures. Without one, nothing is sent and sign-up is closed.
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function verificationMail(to: string, link: string, lifeMs: number): MailMessage {
  const hours = Math.round(lifeMs / 3_600_000);
  const life = hours >= 1 ? `${hours} hour${hours === 1 ? '' : 's'}` : `${Math.round(lifeMs / 60_000)} minutes`;
  return {
    to,
    subject: 'Verify your address for Obscura',
    text: [
      'Someone (we hope you) created an Obscura account with this address.',
      '',
      'Open this link in the browser you signed up with to verify it. It works once, for',
      `${life}:`,
      '',
      link,
      '',
      'If it was not you, ignore this mail: the account stays unusable and nothing else is sent.',
    ].join('\n'),
  };
}

export function alreadyRegisteredMail(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Your Obscura account',
    text: [
      'Someone tried to create an Obscura account with this address, which already has one.',
      '',
      `If it was you, sign in instead: ${link}`,
      '',
      'If it was not you, ignore this mail: nothing was changed.',
    ].join('\n'),
  };
}

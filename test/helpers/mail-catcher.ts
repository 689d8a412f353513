// A real SMTP server on loopback that keeps what it receives: the relay an operator would
// configure, standing in for their mail system. Plain SMTP (no STARTTLS offered), no auth.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './child.ts';
import { until } from './until.ts';

export interface MailCatcher {
  url: string;
  mails: ParsedMail[];
  /** The next mail to `to` not yet taken, waiting for it. */
  next(to: string, ms?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: ParsedMail[] = [];
  const taken = new Set<ParsedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    async onData(stream, _session, cb) {
      try {
        mails.push(await simpleParser(stream));
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const addressOf = (m: ParsedMail) => (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async next(to, ms = 20_000) {
      const found = await until(`a mail to ${to}`, ms, () => mails.find((m) => !taken.has(m) && addressOf(m).includes(to.toLowerCase())));
      taken.add(found);
      return found;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

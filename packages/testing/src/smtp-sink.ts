import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the sink received: the envelope and the raw RFC 5322 text. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, as MAIL_URL takes it */
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A local SMTP server (the `smtp-server` package) that accepts every message, without TLS or
 * authentication, and keeps it for the test to read: the relay MAIL_URL names in production.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

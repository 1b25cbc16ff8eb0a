import nodemailer from 'nodemailer';
import type { Config } from '@leadgen/config';
import { OBJECTION_PAGE_PATH } from '@leadgen/domain';

/** Sends an objection's confirmation link; resolves once the relay accepted the message. */
export type ObjectionMailer = (to: string, token: string) => Promise<void>;

const LINK_TEXT = (link: string, hours: number) =>
  [
    'Someone, probably you, asked that this email address no longer be used for direct marketing by the',
    'customers of this lead generation service, and that its stored copies be erased.',
    '',
    'To confirm, open this link and press the button:',
    link,
    '',
    `The link works once, for ${hours} hours. If you did not ask, ignore this message: nothing changes.`,
  ].join('\n');

/**
 * Confirmation mails through the operator's relay (MAIL_URL: nodemailer's SMTP transport, STARTTLS when the
 * relay offers it). Null without MAIL_URL or PUBLIC_BASE_URL: a link needs an address the person can open, and
 * one made from a request's Host header could point anywhere.
 */
export function createObjectionMailer(config: Config): ObjectionMailer | null {
  const { mailUrl, fromAddress, fromName, linkTtlHours } = config.objections;
  const base = config.http.publicBaseUrl;
  if (!mailUrl || !base) return null;
  const url = new URL(mailUrl);
  const transport = nodemailer.createTransport(
    {
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    },
    { from: { name: fromName, address: fromAddress } },
  );
  return async (to, token) => {
    const link = `${base}${OBJECTION_PAGE_PATH}?token=${token}`;
    await transport.sendMail({
      to,
      subject: 'Confirm your objection to direct marketing',
      text: LINK_TEXT(link, linkTtlHours),
      // No tracking, no images: a scanner that opens the link changes nothing (the page needs a POST).
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
  };
}

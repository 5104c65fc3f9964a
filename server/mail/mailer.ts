import type { Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise the message (with its link) goes to the log.
 * nodemailer (13 MB resident, 0.1 s to load) is loaded with the first message, not at start.
 */
export function createMailer(options: { smtpUrl?: string; from: string }, log: (message: string) => void): Mailer {
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        log(`mail to ${mail.to} (no SMTP_URL configured): ${mail.subject}\n${mail.text}`);
      },
    };
  }
  const smtpUrl = options.smtpUrl;
  let transport: Promise<Transporter> | undefined;
  return {
    async send(mail) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
      await (await transport).sendMail({ from: options.from, ...mail });
    },
  };
}

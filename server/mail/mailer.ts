import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** SMTP through nodemailer when SMTP_URL is set; otherwise the message (with its link) goes to the log. */
export function createMailer(options: { smtpUrl?: string; from: string }, log: (message: string) => void): Mailer {
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        log(`mail to ${mail.to} (no SMTP_URL configured): ${mail.subject}\n${mail.text}`);
      },
    };
  }
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail });
    },
  };
}

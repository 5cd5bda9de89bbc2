#!/usr/bin/python3
"""An SMTP server on 127.0.0.1 for the dispatcher tests (Debian's python3-aiosmtpd).

Usage: smtp_sink.py OUTDIR [REFUSE [CERTIFICATE KEY]]
Prints its port on the first line of stdout, then stores each accepted message as
OUTDIR/<n>.json: envelope, decoded headers, content type and decoded text body, as read
by Python's own e-mail parser (an independent check of what the dispatcher writes), and
whether it came over TLS. The first REFUSE messages (default 0) are answered with a
temporary failure (451). With a certificate chain and its key (PEM files) it offers
STARTTLS and takes no mail without it; without them it offers no STARTTLS."""
import asyncio
import email
import email.policy
import json
import os
import ssl
import sys

from aiosmtpd.smtp import SMTP


class Sink:
    def __init__(self, outdir, refuse):
        self.outdir = outdir
        self.refuse = refuse
        self.stored = 0

    async def handle_DATA(self, server, session, envelope):
        if self.refuse > 0:
            self.refuse -= 1
            return '451 4.3.0 Try again later'
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        record = {
            'mail_from': envelope.mail_from,
            'rcpt_tos': envelope.rcpt_tos,
            'headers': {name.lower(): str(value) for name, value in message.items()},
            'content_type': message.get_content_type(),
            'charset': message.get_content_charset(),
            'body': message.get_content(),
            'tls': session.ssl is not None,
        }
        self.stored += 1
        path = os.path.join(self.outdir, '%06d.json' % self.stored)
        with open(path + '.tmp', 'w', encoding='utf-8') as f:
            json.dump(record, f, ensure_ascii=False)
        os.rename(path + '.tmp', path)  # readers never see half a file
        return '250 2.0.0 OK'


async def main():
    outdir = sys.argv[1]
    refuse = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    sink = Sink(outdir, refuse)
    tls = {}
    if len(sys.argv) > 4:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        tls = {'tls_context': context, 'require_starttls': True}
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(sink, **tls), '127.0.0.1', 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == '__main__':
    asyncio.run(main())

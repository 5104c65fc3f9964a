"""04 - A webhook receiver that verifies signatures (Standard Webhooks), on 127.0.0.1.

    OUTBOUND_ALLOW_CIDRS=127.0.0.1/32 npm start
    IPAM_API_KEY=svc_... python3 clients/python/examples/04_webhook_receiver.py

The service delivers only to public HTTPS URLs unless its operator allows a range for testing. When it
refuses this receiver's loopback URL, the example signs a sample event locally with `sign_webhook` (exactly
what the service sends) and posts it to the receiver itself.
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import threading
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone
from typing import Any

from ipam_sdk import BadRequestError, Ipam, WebhookSignatureError, sign_webhook, verify_webhook

ipam = Ipam(os.environ.get("IPAM_BASE_URL", "http://localhost:3000"), os.environ["IPAM_API_KEY"])
secret = ""  # the subscription's whsec_... secret, shown once when it is created


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        # Verify the raw body (never re-serialised JSON) before trusting anything in it.
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        try:
            event = verify_webhook(secret, body, dict(self.headers.items()))
        except WebhookSignatureError as error:
            print("rejected a delivery:", error)
            self.send_response(400)
        else:
            print(f"verified {event.type} (webhook-id {self.headers['webhook-id']})")
            self.send_response(204)  # any 2xx acknowledges; process each webhook-id once
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/ipam-events"

try:
    subscription = ipam.webhooks.create({"url": url, "description": "example 04", "event_types": ["subnet.created"]})
    secret = subscription.secret
    ping = ipam.webhooks.test(subscription.id)
    print(f"the service sent a ping: our receiver answered {ping.response_status}")
    ipam.webhooks.delete(subscription.id)
except BadRequestError as error:
    print(f"the service refused a loopback URL ({error}); signing a sample event locally instead")
    secret = "whsec_" + base64.b64encode(uuid.uuid4().bytes * 2).decode()
    body = json.dumps({
        "type": "subnet.created",
        "timestamp": datetime.now(timezone.utc).isoformat(),
        "data": {"id": str(uuid.uuid4()), "changes": {"network": [None, "10.0.1.0/24"]}},
    })
    for label, payload in (("genuine", body), ("tampered", body.replace("10.0.1.0", "10.6.6.0"))):
        headers = {"content-type": "application/json", **sign_webhook(secret, "msg_1", body)}
        request = urllib.request.Request(url, data=payload.encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request) as answer:
                print(f"{label} -> {answer.status}")
        except urllib.error.HTTPError as refused:
            print(f"{label} -> {refused.code}")
server.shutdown()

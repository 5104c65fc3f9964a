"""01 - First requests with an API key, through the Python SDK.

    npm run admin -- create-key --email you@example.com --plan pro   # prints svc_...
    npm start                                                         # in another terminal
    IPAM_API_KEY=svc_... python3 clients/python/examples/01_first_requests.py

IPAM_BASE_URL defaults to http://localhost:3000.
"""

from __future__ import annotations

import os
import random
import time

from ipam_sdk import Ipam, NotFoundError

api_key = os.environ.get("IPAM_API_KEY")
if not api_key:
    raise SystemExit("Set IPAM_API_KEY to a key from `npm run admin -- create-key`")
# One client per API key (organisation); it holds its own configuration, nothing global.
ipam = Ipam(os.environ.get("IPAM_BASE_URL", "http://localhost:3000"), api_key)

# Resource methods return the resource itself, typed from the OpenAPI document.
folder = ipam.folders.create({"name": f"Example folder {time.time()}", "description": "made by example 01"})
print("created folder", folder.id, folder.name)

vlan = ipam.vlans.create({"vlan_number": random.randint(100, 3999), "name": "example"})
print("created VLAN", vlan.vlan_number)
print(f"the organisation has {len(ipam.folders.list())} folder(s)")

# An error status raises a typed error: a folder that does not exist is a NotFoundError (404).
try:
    ipam.folders.get("00000000-0000-4000-8000-000000000000")
except NotFoundError as error:
    print("missing folder ->", error.status, error.code, f"(request {error.request_id})")

ipam.vlans.delete(vlan.id)
ipam.folders.delete(folder.id)
print("deleted the example folder and VLAN")

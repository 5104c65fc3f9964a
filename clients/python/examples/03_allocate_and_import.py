"""03 - Allocate addresses and import a CSV-like batch, then read them back page by page.

    IPAM_API_KEY=svc_... python3 clients/python/examples/03_allocate_and_import.py
"""

from __future__ import annotations

import os
import random

from ipam_sdk import Ipam, SubnetCreatedWithWarnings

ipam = Ipam(os.environ.get("IPAM_BASE_URL", "http://localhost:3000"), os.environ["IPAM_API_KEY"])

network = f"172.{random.randint(16, 31)}.{random.randint(0, 255)}.0/24"
answer = ipam.subnets.create({"network": network, "name": "lab"})
lab = answer.subnet if isinstance(answer, SubnetCreatedWithWarnings) else answer

# The lowest free addresses, taken at once (a retried POST carries the same Idempotency-Key: never twice).
taken = ipam.subnets.allocate_address(lab.id, {"count": 3, "status": "assigned", "owner": "lab"})
print("allocated", ", ".join(address.ip for address in taken))

base = network.rsplit(".", 1)[0]
rows = [{"ip": f"{base}.{n}", "subnet": network, "hostname": f"host-{n}"} for n in range(50, 55)]
result = ipam.import_export.import_addresses({"addresses": rows})  # type: ignore[typeddict-item]
print(f"imported: {result.summary.created} created, {result.summary.skipped} skipped")

for address in ipam.addresses.iterate(lab.id, limit=4):
    print(f"  {address.ip:15} {address.status:9} {address.hostname}")
ipam.subnets.delete(lab.id)

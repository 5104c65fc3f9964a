"""02 - Plan a network: a site /16, free /24s inside it, one per purpose, then its usage.

    IPAM_API_KEY=svc_... python3 clients/python/examples/02_plan_a_network.py
"""

from __future__ import annotations

import os
import random

from ipam_sdk import Ipam, SubnetCreatedWithWarnings, SubnetDetail

ipam = Ipam(os.environ.get("IPAM_BASE_URL", "http://localhost:3000"), os.environ["IPAM_API_KEY"])


def created(answer: SubnetDetail | SubnetCreatedWithWarnings) -> SubnetDetail:
    """A create answers {subnet, warnings} when the subnet overlaps ranges in other VRFs."""
    return answer.subnet if isinstance(answer, SubnetCreatedWithWarnings) else answer


site = created(ipam.subnets.create({"network": f"10.{random.randint(100, 250)}.0.0/16", "name": "Site B"}))
print(f"site {site.network}: {site.total_count} usable addresses")
free = ipam.subnets.free_blocks(site.id, prefix=24, limit=3)
for purpose, block in zip(("servers", "printers", "voice"), free.blocks):
    lan = created(ipam.subnets.create({"network": block, "name": purpose}))
    print(f"  {purpose:9} {lan.network}, first free address {ipam.subnets.first_free(lan.id).ip}")
usage = ipam.subnets.usage(site.id)
print(f"site usage: {usage.used} of {usage.total} ({usage.utilization:.1%})")
ipam.subnets.delete(site.id)

"""Iterators over the paged lists: 2,500 addresses in three pages, each exactly once, in address order."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any, Dict, List

from ipam_sdk import AsyncIpam, Ipam, ResponseInfo

from conftest import BASE_URL


def test_2500_addresses_page_by_page(ipam: Ipam, org: Dict[str, Any]) -> None:
    created = ipam.subnets.create({"network": "10.60.0.0/20"})
    subnet = getattr(created, "subnet", created)
    network = ipaddress.ip_network("10.60.0.0/20")
    ips = [str(ip) for ip in list(network.hosts())[:2500]]
    for start in range(0, len(ips), 500):
        ipam.addresses.batch_create(subnet.id, {"ips": ips[start:start + 500]})

    pages: List[ResponseInfo] = []
    counting = Ipam(BASE_URL, org["key"], on_response=pages.append, strict=True)
    seen = [address.ip for address in counting.addresses.iterate(subnet.id, limit=1000)]
    assert seen == ips and len(pages) == 3

    async def gather() -> List[str]:
        asynchronous = AsyncIpam(BASE_URL, org["key"])
        return [address.ip async for address in asynchronous.addresses.iterate(subnet.id, limit=1000)]

    assert asyncio.run(gather()) == ips
    assert [s.id for s in ipam.subnets.iterate(limit=1)] == [s.id for s in ipam.subnets.list()]
    assert sum(1 for _ in ipam.activity.iterate(limit=2)) == ipam.activity.list().total

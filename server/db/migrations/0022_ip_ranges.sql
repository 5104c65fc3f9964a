-- IP ranges inside a subnet (issue 24, part 4): a DHCP pool, a reserved block … from `start_ip` to `end_ip`. No two
-- ranges of a subnet overlap (checked under the subnet's row lock when one is written); they go with their subnet.
CREATE TABLE ip_ranges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  subnet_id uuid NOT NULL REFERENCES subnets (id) ON DELETE CASCADE,
  start_ip inet NOT NULL,
  end_ip inet NOT NULL,
  role text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (start_ip <= end_ip AND family(start_ip) = family(end_ip))
);
CREATE INDEX ip_ranges_subnet ON ip_ranges (subnet_id, start_ip);
CREATE INDEX ip_ranges_org ON ip_ranges (org_id, id);

-- Foundation: tenancy, identity, and the IPAM resources. Every tenant table carries org_id, and every
-- reference between tenant rows is a composite (org_id, id) foreign key, so a row can never point into
-- another organisation, whatever the application does.

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  slug text NOT NULL UNIQUE,
  plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'teams', 'enterprise')),
  limit_overrides jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  email_verified boolean NOT NULL DEFAULT false,
  role text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  accepted_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL,
  user_id uuid NOT NULL,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  permissions text[] NOT NULL CHECK (permissions <@ ARRAY['read', 'write'] AND cardinality(permissions) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  FOREIGN KEY (org_id, user_id) REFERENCES users (org_id, id) ON DELETE CASCADE
);
CREATE INDEX api_keys_org ON api_keys (org_id);

CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE folders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  sort_order integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id),
  UNIQUE (org_id, name)
);

CREATE TABLE locations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  address text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id),
  UNIQUE (org_id, name)
);

CREATE TABLE vlans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  vlan_number integer NOT NULL CHECK (vlan_number BETWEEN 1 AND 4094),
  name text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  location_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id),
  UNIQUE (org_id, vlan_number),
  FOREIGN KEY (org_id, location_id) REFERENCES locations (org_id, id) ON DELETE SET NULL (location_id)
);
CREATE INDEX vlans_location ON vlans (org_id, location_id) WHERE location_id IS NOT NULL;

CREATE TABLE vrfs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  rd text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id),
  UNIQUE (org_id, name)
);

-- A subnet's space is its VRF, or the global space when vrf_id is null; NULLS NOT DISTINCT makes the
-- global space unique too. Deleting a VRF that subnets use is refused (RESTRICT).
CREATE TABLE subnets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id uuid,
  folder_id uuid,
  vrf_id uuid,
  vlan_id uuid,
  location_id uuid,
  network cidr NOT NULL,
  name text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  is_pool boolean NOT NULL DEFAULT false,
  gateway inet,
  dns_primary inet,
  dns_secondary inet,
  scan_enabled boolean NOT NULL DEFAULT false,
  tracked boolean NOT NULL DEFAULT true,
  custom_fields jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id),
  UNIQUE NULLS NOT DISTINCT (org_id, vrf_id, network),
  FOREIGN KEY (org_id, parent_id) REFERENCES subnets (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, folder_id) REFERENCES folders (org_id, id) ON DELETE SET NULL (folder_id),
  FOREIGN KEY (org_id, vrf_id) REFERENCES vrfs (org_id, id) ON DELETE RESTRICT,
  FOREIGN KEY (org_id, vlan_id) REFERENCES vlans (org_id, id) ON DELETE SET NULL (vlan_id),
  FOREIGN KEY (org_id, location_id) REFERENCES locations (org_id, id) ON DELETE SET NULL (location_id)
);
CREATE INDEX subnets_parent ON subnets (org_id, parent_id);
CREATE INDEX subnets_folder ON subnets (org_id, folder_id) WHERE folder_id IS NOT NULL;
CREATE INDEX subnets_vrf ON subnets (org_id, vrf_id) WHERE vrf_id IS NOT NULL;
CREATE INDEX subnets_vlan ON subnets (org_id, vlan_id) WHERE vlan_id IS NOT NULL;
CREATE INDEX subnets_location ON subnets (org_id, location_id) WHERE location_id IS NOT NULL;

CREATE TABLE addresses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  subnet_id uuid NOT NULL,
  vrf_id uuid,
  ip inet NOT NULL,
  hostname text NOT NULL DEFAULT '',
  mac_address text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'assigned' CHECK (status IN ('assigned', 'reserved', 'd-dhcp', 'm-dhcp', 'gateway')),
  owner text NOT NULL DEFAULT '',
  ptr_record text,
  custom_fields jsonb,
  last_seen timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE NULLS NOT DISTINCT (org_id, vrf_id, ip),
  FOREIGN KEY (org_id, subnet_id) REFERENCES subnets (org_id, id) ON DELETE CASCADE
);
CREATE INDEX addresses_subnet ON addresses (subnet_id, ip);

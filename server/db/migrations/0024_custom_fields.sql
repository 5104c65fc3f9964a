-- Typed custom fields (issue 24, part 2): definitions of the keys of `custom_fields`, per organisation and kind of
-- resource (`subnet`, `address`). A definition never rewrites stored values; writes check new values against it.
CREATE TABLE custom_field_definitions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('subnet', 'address')),
  name text NOT NULL,
  label text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  type text NOT NULL,
  required boolean NOT NULL DEFAULT false,
  -- The default as a JSON value (null: none), the choices of a select as a JSON array of strings (null otherwise).
  default_value jsonb,
  choices jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, kind, name)
);

-- One counter per organisation, moved by every definition write (under this row's lock, so definition writes of an
-- organisation take turns): a process caching an organisation's definitions guards each write with it.
CREATE TABLE custom_field_versions (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  version bigint NOT NULL
);

-- Equality filters (`?cf_<name>=`) as containment; rows without custom fields are left out of the index, so writes of
-- them pay nothing for it.
CREATE INDEX subnets_custom_fields ON subnets USING gin (custom_fields jsonb_path_ops) WHERE custom_fields IS NOT NULL;
CREATE INDEX addresses_custom_fields ON addresses USING gin (custom_fields jsonb_path_ops)
  WHERE custom_fields IS NOT NULL;

-- Tags (issue 24, part 1): an organisation's labels (name, colour, description), attached to subnets, addresses,
-- VLANs, VRFs, locations and folders. A resource keeps the names of its tags in `tags`, so reading it needs no
-- join and `?tag=` is an array test; renaming or deleting a tag rewrites the arrays that hold it, in the same
-- transaction (rare, and found through the indexes below).
CREATE TABLE tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  colour text NOT NULL DEFAULT '#9e9e9e',
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- A unique key: a writer that refers to a tag by name locks it FOR KEY SHARE, which a rename or delete waits for.
  UNIQUE (org_id, name)
);

-- Only tagged rows are indexed: an untagged write (most of them) touches no GIN index, and a filter states
-- `tags <> '{}'` so that it may use the index.
ALTER TABLE subnets ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX subnets_tags ON subnets USING gin (tags) WHERE tags <> '{}';
ALTER TABLE addresses ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX addresses_tags ON addresses USING gin (tags) WHERE tags <> '{}';
ALTER TABLE vlans ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX vlans_tags ON vlans USING gin (tags) WHERE tags <> '{}';
ALTER TABLE vrfs ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX vrfs_tags ON vrfs USING gin (tags) WHERE tags <> '{}';
ALTER TABLE locations ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX locations_tags ON locations USING gin (tags) WHERE tags <> '{}';
ALTER TABLE folders ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX folders_tags ON folders USING gin (tags) WHERE tags <> '{}';

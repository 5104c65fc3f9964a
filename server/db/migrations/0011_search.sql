-- Search (GET /search): case-insensitive substrings of names, hostnames and descriptions through trigram
-- indexes, and text prefixes of networks and ips ("10.20" finds 10.20.1.0/24 and 10.20.1.7) through
-- pattern-ops b-trees per organisation.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX subnets_name_trgm ON subnets USING gin (name gin_trgm_ops);
CREATE INDEX subnets_description_trgm ON subnets USING gin (description gin_trgm_ops);
CREATE INDEX subnets_network_text ON subnets (org_id, (network::text) text_pattern_ops);
CREATE INDEX addresses_hostname_trgm ON addresses USING gin (hostname gin_trgm_ops);
CREATE INDEX addresses_description_trgm ON addresses USING gin (description gin_trgm_ops);
CREATE INDEX addresses_ip_text ON addresses (org_id, host(ip) text_pattern_ops);

/**
 * fast-check arbitraries built from the OpenAPI document (read at test time, so they follow the contract):
 * valid requests from each operation's parameters and request body schema, and invalid ones made by one
 * mutation of a valid request. Ids come from pools of objects that exist in the test organisation, so valid
 * requests reach the handlers; a few property names carry meaning the schemas cannot say (a CIDR, an
 * address inside the subnet of the path) and have hints below.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { routeMeta } from '../../contract/common/meta';
import { BITS, type Cidr, formatCidr, formatIp, parseCidr } from '../../server/ipam';
import { defined } from '../support/defined';
import { routesById } from '../support/routes';

export type Schema = Record<string, any>;

export const document: Schema = JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));

export interface Operation {
  id: string;
  method: string;
  /** The document's path, with `{name}` parameters. */
  path: string;
  pathParams: Schema[];
  queryParams: Schema[];
  headerParams: Schema[];
  /** The JSON request body schema, $ref resolved. */
  body?: Schema;
  statuses: number[];
  isPublic: boolean;
  /** The key scope the contract's metadata requires (the document does not say). */
  scope?: 'read' | 'write';
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Follows `$ref`s to a schema of the document's components. */
export function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 20 && typeof current.$ref === 'string'; i++) {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Schema, part: string) => node[part], document);
  }
  return current;
}

/** Every operation of the document, in its order. */
export function operations(): Operation[] {
  const list: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters: Schema[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const content = op.requestBody?.content?.['application/json'];
      const route = routesById[op.operationId];
      list.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        headerParams: parameters.filter((p) => p.in === 'header'),
        body: content ? resolve(content.schema) : undefined,
        statuses: Object.keys(op.responses).map(Number),
        isPublic: !(op.security ?? document.security ?? []).length,
        scope: route ? routeMeta(route).scope : undefined,
      });
    }
  }
  return list;
}

// ---- The test organisation's objects ---------------------------------------------------------------------

export const KINDS = [
  'folders',
  'subnets',
  'addresses',
  'vlans',
  'vrfs',
  'locations',
  'ranges',
  'tags',
  'custom-fields',
  'webhooks',
  'api-keys',
  'members',
  'invitations',
] as const;
export type Kind = (typeof KINDS)[number];

export interface Entity {
  id: string;
  name?: string;
  /** Subnets: their block and VRF; ranges: their subnet's block. */
  network?: Cidr;
  vrfId?: string | null;
  /** Ranges: their subnet (deleted with it). */
  subnetId?: string;
}

export type Pools = Record<Kind, Entity[]>;
export const emptyPools = (): Pools => Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Pools;

/** The kind of object a path parameter names: the path segment before it (`/team/members/{user_id}` → members). */
export function kindOfPathParam(path: string, name: string): Kind | undefined {
  const segments = path.split('/');
  const before = segments[segments.indexOf(`{${name}}`) - 1] ?? '';
  return (KINDS as readonly string[]).includes(before) ? (before as Kind) : undefined;
}

export interface GenContext {
  pools: Pools;
  /** Where webhook URLs point: a receiver on loopback. */
  receiverUrl: string;
  /** The caller's own user id (a valid `user_id` filter). */
  ownerId: string;
  /** The subnet of the path, when there is one. */
  subnet?: Entity;
  /** The block addresses should fall in: the path's subnet, or the body's own network. */
  network?: Cidr;
}

/** An existing object of a kind most of the time, else a fresh UUID (nothing there: a 404 or a 400). */
export function entityOf(kind: Kind, ctx: GenContext, existing = 9): fc.Arbitrary<Entity> {
  // The pool as it is when a value is generated (requests before this one created and deleted objects).
  const existingOne = fc.tuple(fc.nat(), fc.uuid()).map(([i, id]) => {
    const pool = ctx.pools[kind];
    return pool[i % pool.length] ?? { id };
  });
  return fc.oneof(
    { weight: existing, arbitrary: existingOne },
    { weight: 1, arbitrary: fc.uuid().map((id) => ({ id })) },
  );
}

// ---- Text ----------------------------------------------------------------------------------------------

const PLAIN = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:/@#'];
/** Control characters (never NUL: that one is invalid, see `mutations`), quotes, bidi, emoji, a lone surrogate. */
const ODD = [
  '\t',
  '\n',
  '\r',
  '\x01',
  '\x1b',
  '\x7f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u202e',
  '\ufeff',
  'é',
  'ß',
  '中',
  '🙂',
  '\ud800',
  '%',
  '\\',
  '"',
  "'",
  '<',
  '&',
  '{',
  '=',
  '+',
];
const textUnit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...PLAIN) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD) },
);

export function text(minLength = 0, maxLength = 40): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.string({ unit: textUnit, minLength, maxLength: Math.max(minLength, Math.min(maxLength, 24)) }),
    },
    // At the limit (plain ASCII, so UTF-16 length and code points agree).
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...PLAIN), minLength: maxLength, maxLength }) },
  );
}

// ---- Addresses and blocks --------------------------------------------------------------------------------

const MAX = (version: 4 | 6) => (1n << BigInt(BITS[version])) - 1n;

/** An address inside a block: its edges (network, broadcast, gateway-like) often, else anywhere. */
export function ipIn(c: Cidr): fc.Arbitrary<string> {
  const size = 1n << BigInt(BITS[c.version] - c.prefix);
  const edges = [0n, 1n, 2n, size - 2n, size - 1n].filter((o) => o >= 0n && o < size);
  return fc
    .oneof(fc.constantFrom(...edges), fc.bigInt({ min: 0n, max: size - 1n }))
    .map((offset) => formatIp({ version: c.version, value: c.network + offset }));
}

const aligned = (version: 4 | 6, value: bigint, prefix: number): Cidr => {
  const host = (1n << BigInt(BITS[version] - prefix)) - 1n;
  return { version, network: value & ~host & MAX(version), prefix };
};

/** A block under another: 1 to 12 bits longer, anywhere inside it. */
export function childOf(c: Cidr): fc.Arbitrary<Cidr> {
  const bits = BITS[c.version];
  if (c.prefix >= bits) return fc.constant(c);
  return fc
    .tuple(
      fc.integer({ min: c.prefix + 1, max: Math.min(bits, c.prefix + 12) }),
      fc.bigInt({ min: 0n, max: MAX(c.version) }),
    )
    .map(([prefix, random]) => {
      const size = 1n << BigInt(bits - c.prefix);
      return aligned(c.version, c.network + (random % size), prefix);
    });
}

const TEN = parseCidr('10.0.0.0/8')!.cidr;
const DOC6 = parseCidr('2001:db8::/32')!.cidr;

/** A block for a new subnet: under an existing one (nesting), in 10/8 or 2001:db8::/32, sometimes with host bits. */
export function cidrFor(ctx: GenContext): fc.Arbitrary<{ text: string; cidr: Cidr }> {
  const subnets = ctx.pools.subnets.filter((s) => s.network);
  const underExisting = fc.nat().chain((i) => {
    const under = subnets[i % subnets.length]; // none when there are no subnets (i % 0 is NaN)
    return under?.network ? childOf(under.network) : childOf(TEN);
  });
  const block = fc.oneof(
    { weight: 4, arbitrary: underExisting },
    { weight: 3, arbitrary: childOf({ ...TEN, prefix: 7 }).filter((c) => c.prefix >= 8) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 32, max: 128 }), fc.bigInt({ min: 0n, max: MAX(6) }))
        .map(([p, r]) => aligned(6, DOC6.network + (r & ((1n << 96n) - 1n)), p)),
    },
  );
  return fc.oneof(
    { weight: 9, arbitrary: block.map((cidr) => ({ text: formatCidr(cidr), cidr })) },
    // Host bits set: the server normalises or refuses; either is an answer the contract declares.
    { weight: 1, arbitrary: block.chain((cidr) => ipIn(cidr).map((ip) => ({ text: `${ip}/${cidr.prefix}`, cidr }))) },
  );
}

/** An address: in the context's block when there is one, else in an existing subnet, else anywhere. */
export function ipFor(ctx: GenContext): fc.Arbitrary<string> {
  if (ctx.network)
    return fc.oneof(
      { weight: 9, arbitrary: ipIn(ctx.network) },
      { weight: 1, arbitrary: fc.oneof(fc.ipV4(), fc.ipV6()) },
    );
  const subnets = ctx.pools.subnets.filter((s) => s.network);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.nat().chain((i) => {
        const within = subnets[i % subnets.length]; // none when there are no subnets (i % 0 is NaN)
        return within?.network ? ipIn(within.network) : fc.ipV4();
      }),
    },
    { weight: 1, arbitrary: fc.oneof(fc.ipV4(), fc.ipV6()) },
  );
}

/** A prefix length longer than the context's block by 1 to 10 bits (a free block, an allocation, a split). */
function longerPrefix(ctx: GenContext, schema: Schema): fc.Arbitrary<number> {
  const min = schema.minimum ?? 1;
  const max = schema.maximum ?? 128;
  if (!ctx.network) return fc.integer({ min, max });
  const bits = BITS[ctx.network.version];
  const low = Math.min(bits, ctx.network.prefix + 1);
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: low, max: Math.min(bits, ctx.network.prefix + 10) }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
}

// ---- Values from schemas --------------------------------------------------------------------------------

const names = (kind: Kind, ctx: GenContext) => ctx.pools[kind].map((e) => e.name).filter((n): n is string => !!n);

/**
 * An Idempotency-Key the sender replaces with a new UUID on each send: generated UUIDs repeat while
 * fast-check shrinks, and a key used before with another request answers 422 instead of the failure.
 */
export const FRESH_KEY = 'fresh-idempotency-key';

/** What a property name means beyond its schema; undefined: generate from the schema alone. */
function hint(name: string, schema: Schema, ctx: GenContext): fc.Arbitrary<unknown> | undefined {
  const type = schema.type;
  const kindOfId: Record<string, Kind> = {
    folder_id: 'folders',
    vlan_id: 'vlans',
    vrf_id: 'vrfs',
    location_id: 'locations',
    subnet_id: 'subnets',
  };
  if (kindOfId[name] && schema.format === 'uuid') return entityOf(kindOfId[name], ctx).map((e) => e.id);
  // A list filter naming one object or several separated by commas (`global`: the VRF of the global space).
  if (kindOfId[name] && type === 'string') {
    const ids = fc.uniqueArray(
      entityOf(kindOfId[name], ctx).map((e) => e.id),
      { minLength: 1, maxLength: 3 },
    );
    return name === 'vrf_id'
      ? fc.oneof(
          ids.map((list) => list.join(',')),
          fc.constant('global'),
        )
      : ids.map((list) => list.join(','));
  }
  if (name === 'user_id' && schema.format === 'uuid')
    return fc.oneof(
      fc.constant(ctx.ownerId),
      entityOf('members', ctx).map((e) => e.id),
    );
  // A range of the path's subnet (another's is a 404); `skip_ranges` beside it is a 400, so mostly not.
  if (name === 'range_id') {
    const own = ctx.pools.ranges.filter((r) => r.subnetId !== undefined && r.subnetId === ctx.subnet?.id);
    return own.length ? fc.oneof(fc.constantFrom(...own.map((r) => r.id)), fc.uuid()) : fc.uuid();
  }
  if (name === 'skip_ranges' && type === 'boolean')
    return fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true));
  if (name === 'skip_first' && type === 'integer') return fc.integer({ min: 0, max: 3 });
  // Tags are named: a body's `tags` and the lists' `?tag=` name the organisation's (an unknown name is a 400).
  const tagNames = fc.uniqueArray(fc.nat(), { maxLength: 3 }).map((picks) => {
    // The pool as it is when a value is generated (requests before this one created and deleted tags).
    const names = ctx.pools.tags.flatMap((e) => (e.name ? [e.name] : []));
    return [...new Set(picks.flatMap((i) => (names.length ? [names[i % names.length] as string] : [])))];
  });
  if (name === 'tags' && type === 'array') return tagNames;
  if (name === 'tag') return tagNames.filter((names) => names.length > 0).map((names) => names.join(','));
  // Fresh keys: a key used before with another request is a 422 (declared, but it stops the request).
  if (name === 'idempotency-key') return fc.constant(FRESH_KEY);
  // A version no request could know (the resource's ETag): `*` matches any, a made-up tag none.
  if (name === 'if-match') return fc.constant('*');
  if (name === 'if-none-match') return fc.constantFrom('"made-up"', 'W/"made-up"');
  if (name === 'ids' && type === 'array')
    return fc.uniqueArray(
      entityOf('addresses', ctx).map((e) => e.id),
      { minLength: 1, maxLength: 6 },
    );
  if (type !== 'string' && type !== 'array' && type !== 'integer') return undefined;
  switch (name) {
    case 'network':
      return type === 'string' ? cidrFor(ctx).map((c) => c.text) : undefined;
    case 'ip':
    case 'gateway':
    case 'dns_primary':
    case 'dns_secondary':
      return type === 'string' && !schema.format ? ipFor(ctx) : undefined;
    case 'ips':
      return type === 'array' ? fc.array(ipFor(ctx), { minLength: 1, maxLength: 8 }) : undefined;
    case 'start':
    case 'end':
      return type === 'string' ? ipFor(ctx) : undefined;
    case 'contains':
      return type === 'string'
        ? fc.oneof(
            ipFor(ctx),
            cidrFor(ctx).map((c) => c.text),
          )
        : undefined;
    case 'within':
      return type === 'string' ? cidrFor(ctx).map((c) => c.text) : undefined;
    case 'status':
      // The address list's filter: one status or several separated by commas (a body's status is an enum).
      return type === 'string' && !schema.enum
        ? fc
            .uniqueArray(fc.constantFrom('assigned', 'reserved', 'd-dhcp', 'm-dhcp', 'gateway'), {
              minLength: 1,
              maxLength: 3,
            })
            .map((list) => list.join(','))
        : undefined;
    case 'url':
      return type === 'string' && schema.format === 'uri'
        ? fc.oneof(fc.constant('ok'), fc.constant('fail'), fc.webSegment()).map((p) => `${ctx.receiverUrl}/${p}`)
        : undefined;
    case 'email':
      return type === 'string'
        ? fc.oneof(
            { weight: 4, arbitrary: fc.nat().map((n) => `fuzz-${n}@example.test`) },
            { weight: 1, arbitrary: fc.emailAddress() },
          )
        : undefined;
    case 'q': {
      const subnets = ctx.pools.subnets.filter((s) => s.network);
      const terms = [...names('folders', ctx), ...subnets.map((s) => formatCidr(s.network!))];
      return fc.oneof(
        { weight: 2, arbitrary: ipFor(ctx) },
        { weight: 2, arbitrary: terms.length ? fc.constantFrom(...terms) : text(1, 20) },
        { weight: 1, arbitrary: fc.constantFrom('10.', '10.0', '2001:db8', '10.0.0.0/', 'fuzz', '%', '_', '*') },
        { weight: 2, arbitrary: text(1, schema.maxLength ?? 100) },
      );
    }
    case 'prefix':
    case 'prefix_length':
      return type === 'integer' ? longerPrefix(ctx, schema) : undefined;
    case 'parts':
      return type === 'integer'
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(2, 4, 8, 16) },
            { weight: 1, arbitrary: fc.integer({ min: schema.minimum ?? 2, max: schema.maximum ?? 1024 }) },
          )
        : undefined;
    case 'count':
      return type === 'integer'
        ? fc.oneof(
            { weight: 5, arbitrary: fc.integer({ min: schema.minimum ?? 1, max: Math.min(schema.maximum ?? 5, 5) }) },
            { weight: 1, arbitrary: fc.integer({ min: schema.minimum ?? 1, max: schema.maximum ?? 64 }) },
          )
        : undefined;
    case 'folder':
    case 'location':
    case 'vrf': {
      if (type !== 'string') return undefined;
      const kind = ({ folder: 'folders', location: 'locations', vrf: 'vrfs' } as const)[name];
      const known = names(kind, ctx);
      const own = text(schema.minLength ?? 0, schema.maxLength ?? 40);
      return known.length ? fc.oneof(fc.constantFrom(...known), own) : own;
    }
    case 'action':
      return type === 'string'
        ? fc.oneof(fc.constantFrom('create', 'update', 'delete', 'split', 'import'), text(1, schema.maxLength ?? 100))
        : undefined;
    case 'resource_type':
      return type === 'string'
        ? fc.oneof(fc.constantFrom('subnet', 'address', 'folder', 'vlan', 'vrf', 'location'), text(1, 100))
        : undefined;
    default:
      return undefined;
  }
}

/** A valid value of a schema (as far as the document can say), for a property of this name. */
export function valueFor(input: Schema | undefined, name: string, ctx: GenContext): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  const hinted = hint(name, schema, ctx);
  const arbitrary = hinted ?? plainValueOf(schema, name, ctx);
  return schema.nullable ? fc.option(arbitrary, { nil: null, freq: 6 }) : arbitrary;
}

const dateTime = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Math.max(min, 40);
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return dateTime;
  if (schema.format === 'email') return fc.nat().map((n) => `fuzz-${n}@example.test`);
  if (schema.format === 'uri') return fc.webUrl().filter((u) => u.length <= max);
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
    } catch {
      // A pattern fast-check cannot generate from: plain text, which the server may refuse (400).
    }
  }
  return text(min, max);
}

/** A free-form JSON object (custom fields): small, any JSON values. */
export const freeForm = fc.dictionary(text(1, 12), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

function plainValueOf(schema: Schema, name: string, ctx: GenContext): fc.Arbitrary<unknown> {
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) return fc.oneof(...variants.map((v: Schema) => valueFor(v, name, ctx)));
  if (schema.allOf) return valueFor(Object.assign({}, ...schema.allOf.map(resolve)), name, ctx);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? 5, minLength + 5);
      const items = valueFor(schema.items, name, ctx);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectOf(schema, ctx);
    default:
      return schema.properties ? objectOf(schema, ctx) : fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object: its required properties and some optional ones; `network` or `subnet` first, as others depend on it. */
function objectOf(schema: Schema, ctx: GenContext): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  if (Object.keys(properties).length === 0) return freeForm;
  const required: string[] = schema.required ?? [];
  const rest = (inner: GenContext, skip?: string) => {
    const model = Object.fromEntries(
      Object.entries(properties)
        .filter(([key]) => key !== skip)
        .map(([key, value]) => [key, valueFor(value, key, inner)]),
    );
    return fc.record(model, { requiredKeys: required.filter((k) => k !== skip) }) as fc.Arbitrary<
      Record<string, unknown>
    >;
  };
  if (resolve(properties.network).type === 'string') {
    return cidrFor(ctx).chain(({ text, cidr }) =>
      rest({ ...ctx, network: cidr }, 'network').map((o) => ({ network: text, ...o })),
    );
  }
  // A custom field definition: choices exactly for a select, a default of its type, required only with one.
  if (properties.choices && properties.type) return rest(ctx).map(coherentDefinition);
  if (resolve(properties.subnet).type === 'string') {
    const subnets = ctx.pools.subnets.filter((s) => s.network && !s.vrfId);
    return fc
      .nat()
      .map((i) => subnets[i % subnets.length]?.network ?? TEN)
      .chain((cidr) => rest({ ...ctx, network: cidr }, 'subnet').map((o) => ({ subnet: formatCidr(cidr), ...o })));
  }
  return rest(ctx);
}

/** A value of each custom field type, for a definition's default. */
const DEFAULT_OF: Record<string, unknown> = {
  text: 'x',
  integer: 7,
  boolean: true,
  date: '2026-01-02',
  url: 'https://example.com/',
  ip: '10.0.0.1',
};

/**
 * A generated definition (create or change) made coherent, so that valid requests succeed: choices for a select
 * (distinct), none for another type, a default of the type, required only beside a default (a required field
 * without one would refuse every other create of the run).
 */
function coherentDefinition(body: Record<string, unknown>): Record<string, unknown> {
  const fixed = { ...body };
  const choices = [...new Set(Array.isArray(fixed.choices) ? (fixed.choices as string[]) : [])];
  if (fixed.type === 'select') fixed.choices = choices.length ? choices : ['a', 'b'];
  else if (fixed.type !== undefined) delete fixed.choices;
  if (fixed.default !== undefined && fixed.default !== null) {
    if (fixed.type === undefined) delete fixed.default;
    else fixed.default = fixed.type === 'select' ? (fixed.choices as string[])[0] : DEFAULT_OF[fixed.type as string];
  }
  if (fixed.required === true && (fixed.default === undefined || fixed.default === null)) fixed.required = false;
  return fixed;
}

// ---- Requests -------------------------------------------------------------------------------------------

export type Role = 'admin' | 'editor' | 'viewer';
export type Auth =
  | { kind: 'none' }
  | { kind: 'key' }
  | { kind: 'session'; csrf: boolean }
  /** A member created for the request (ending a session, deleting an account). */
  | { kind: 'fresh'; role: Role; via: 'key' | 'session'; csrf?: false }
  | { kind: 'scoped'; permissions: ('read' | 'write')[] }
  | { kind: 'raw'; authorization?: string; cookie?: string };

export type Body = { json: unknown } | { raw: string; contentType?: string };

export interface FuzzRequest {
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: Body;
  auth: Auth;
  /** The mutation that made it invalid. */
  mutation?: string;
  /** The item of the body's array the mutation changed (import rows are checked one by one: an `error` result). */
  item?: number;
  /** Path parameters sent as they are, not percent-encoded (malformed percent-escapes). */
  rawParams?: Record<string, string>;
  /** The answer the mutation calls for, when one is certain: its status, and its code or message when given. */
  answer?: { status: number; code?: string; error?: RegExp };
}

/** Operations whose valid requests end the caller's session or account: done by a member made for each. */
export const SELF_DESTRUCTIVE = new Set(['endSession', 'deleteAccount']);

function authFor(op: Operation): fc.Arbitrary<Auth> {
  if (op.isPublic) return fc.constant({ kind: 'none' });
  if (SELF_DESTRUCTIVE.has(op.id)) {
    return fc.record({
      kind: fc.constant('fresh' as const),
      role: fc.constantFrom<Role>('admin', 'editor', 'viewer'),
      via: fc.constantFrom<'key' | 'session'>('key', 'session'),
    });
  }
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<Auth>({ kind: 'key' }) },
    { weight: 1, arbitrary: fc.constant<Auth>({ kind: 'session', csrf: true }) },
  );
}

const asQueryValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A valid request of an operation: path ids of existing objects, required and some optional parameters, a body. */
export function validRequest(op: Operation, base: GenContext): fc.Arbitrary<FuzzRequest> {
  const entities = fc.record(
    Object.fromEntries(
      op.pathParams.map((p) => {
        const kind = kindOfPathParam(op.path, p.name);
        return [p.name, kind ? entityOf(kind, base) : fc.uuid().map((id) => ({ id }))];
      }),
    ) as Record<string, fc.Arbitrary<Entity>>,
  );
  return entities.chain((byName) => {
    const subnetParam = op.pathParams.find((p) => kindOfPathParam(op.path, p.name) === 'subnets');
    // A range carries its subnet's block: addresses for it fall there.
    const rangeParam = op.pathParams.find((p) => kindOfPathParam(op.path, p.name) === 'ranges');
    const subnet = subnetParam ? byName[subnetParam.name] : rangeParam ? byName[rangeParam.name] : undefined;
    const ctx: GenContext = { ...base, subnet, network: subnet?.network };
    const params = (list: Schema[]) =>
      fc.record(Object.fromEntries(list.map((p) => [p.name, valueFor(p.schema, p.name, ctx).map(asQueryValue)])), {
        requiredKeys: list.filter((p) => p.required).map((p) => p.name),
      }) as fc.Arbitrary<Record<string, string>>;
    return fc
      .record({
        // A cursor comes only from a page's Next-Cursor, which a generated request cannot know (invalid ones
        // are the invalid requests' part).
        query: params(op.queryParams.filter((p) => p.name !== 'cursor')),
        // Header values are visible ASCII (fetch refuses others; HTTP trims spaces at the ends).
        headers: params(op.headerParams).map((h) =>
          Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.replace(/[^\x21-\x7e]/g, '-')])),
        ),
        body: op.body ? valueFor(op.body, '', ctx).map((json): Body => ({ json })) : fc.constant(undefined),
        auth: authFor(op),
      })
      .map((r) => ({ params: Object.fromEntries(Object.entries(byName).map(([k, e]) => [k, e.id])), ...r }));
  });
}

// ---- Mutations: each makes a valid request invalid ------------------------------------------------------

interface Mutation {
  label: string;
  apply(request: FuzzRequest): FuzzRequest;
}

const JSON_TYPE = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
const OTHER_TYPED = [12345, -1.5, true, 'text', [1, 'a'], { nested: 1 }, null];

function allowedTypes(schema: Schema): string[] | undefined {
  const s = resolve(schema);
  if (s.oneOf || s.anyOf) return undefined;
  const types: string[] = [];
  if (s.enum) types.push(...new Set<string>(s.enum.map(JSON_TYPE)));
  else if (s.type === 'number') types.push('number', 'integer');
  else if (s.type) types.push(s.type);
  else return undefined;
  if (s.nullable) types.push('null');
  return types;
}

/** Percent-escapes that do not decode: not hex, cut short, a cut or overlong UTF-8 sequence, a surrogate. */
const MALFORMED_ESCAPES = [
  '%',
  '%zz',
  '%2',
  '%%41',
  '%u0041',
  '%E0%A4%A',
  '%E0%A4',
  '%C3',
  '%C0%80',
  '%ED%A0%80',
  '%FF',
];

const NOT_UUID = ['not-a-uuid', '1', '0', 'null', "' OR '1'='1", '3f2b8c1e5d4a4e6b9c7d1a2b3c4d5e6f', 'ü', '\u0000'];

/** Where an object body's properties are: the top level, and the first item of an array of objects. */
function objectSlots(body: Schema): { path: (string | number)[]; schema: Schema }[] {
  const slots = [{ path: [] as (string | number)[], schema: body }];
  for (const [key, value] of Object.entries<Schema>(body.properties ?? {})) {
    const s = resolve(value);
    if (s.type === 'array' && resolve(s.items).properties) slots.push({ path: [key, 0], schema: resolve(s.items) });
  }
  return slots;
}

/** A copy of a JSON body with the object at `path` changed (the array item made if missing). */
function editAt(json: unknown, path: (string | number)[], edit: (target: Record<string, unknown>) => void): unknown {
  const copy = structuredClone(json) as Record<string, any>;
  let target: any = copy;
  for (const [i, key] of path.entries()) {
    if (target[key] === undefined || target[key] === null || typeof target[key] !== 'object') {
      target[key] = typeof path[i + 1] === 'number' ? [] : {};
    }
    if (typeof path[i + 1] === 'number' && target[key].length === 0) target[key].push({});
    target = target[key];
  }
  edit(target);
  return copy;
}

const withJson = (request: FuzzRequest, json: unknown): FuzzRequest => ({ ...request, body: { json } });
const jsonOf = (request: FuzzRequest) => (request.body && 'json' in request.body ? request.body.json : {});

function bodyMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const body = op.body;
  if (!body) return [];
  const list: fc.Arbitrary<Mutation>[] = [];

  for (const { path, schema } of objectSlots(body)) {
    const where = path.length ? `${path.join('.')}.` : '';
    const item = typeof path.at(-1) === 'number' ? (path.at(-1) as number) : undefined;
    const mutation = (label: string, apply: Mutation['apply']): Mutation => ({
      label,
      apply: (r) => ({ ...apply(r), item }),
    });
    const properties = Object.entries<Schema>(schema.properties ?? {});
    const required: string[] = schema.required ?? [];
    const set = (key: string, value: unknown) => (r: FuzzRequest) =>
      withJson(
        r,
        editAt(jsonOf(r), path, (o) => {
          o[key] = value;
        }),
      );

    const typed = properties.filter(([, s]) => allowedTypes(s));
    if (typed.length) {
      list.push(
        fc.tuple(fc.constantFrom(...typed), fc.constantFrom(...OTHER_TYPED)).chain(([[key, s], value]) => {
          const allowed = allowedTypes(s)!;
          const wrong = [value, ...OTHER_TYPED].find(
            (v) => !allowed.includes(JSON_TYPE(v)) && !(allowed.includes('number') && typeof v === 'number'),
          );
          return fc.constant(mutation(`wrong type ${where}${key} = ${JSON.stringify(wrong)}`, set(key, wrong)));
        }),
      );
    }
    if (required.length) {
      list.push(
        fc.constantFrom(...required).map((key) =>
          mutation(`missing required ${where}${key}`, (r) =>
            withJson(
              r,
              editAt(jsonOf(r), path, (o) => void delete o[key]),
            ),
          ),
        ),
      );
    }
    if (schema.additionalProperties === false) {
      list.push(
        fc
          .constantFrom('unknown_field', 'Name', '__proto__x', 'id', 'org_id', 'created_at')
          .map((key) => mutation(`unknown field ${where}${key}`, set(key, 'x'))),
      );
    }
    for (const [key, raw] of properties) {
      const s = resolve(raw);
      if (s.type === 'integer' || s.type === 'number') {
        const bad: unknown[] = [];
        if (s.minimum !== undefined) bad.push(s.minimum - 1, s.minimum - 1_000_000_000);
        if (s.maximum !== undefined) bad.push(s.maximum + 1, 1e300);
        if (s.type === 'integer') bad.push((s.minimum ?? 0) + 0.5);
        if (bad.length)
          list.push(fc.constantFrom(...bad).map((v) => mutation(`out of range ${where}${key} = ${v}`, set(key, v))));
      }
      if (s.type === 'string') {
        if (s.maxLength !== undefined) {
          list.push(
            fc
              .oneof(fc.constant(s.maxLength + 1), fc.integer({ min: s.maxLength + 2, max: s.maxLength + 100_000 }))
              .map((n) => mutation(`too long ${where}${key} (${n})`, set(key, 'a'.repeat(n)))),
          );
        }
        if ((s.minLength ?? 0) > 0) list.push(fc.constant(mutation(`empty ${where}${key}`, set(key, ''))));
        if (s.enum) list.push(fc.constant(mutation(`not in enum ${where}${key}`, set(key, `not-${s.enum[0]}`))));
        if (s.pattern) {
          const re = new RegExp(s.pattern);
          const bad = ['zz', '-1', '99999', ' ', 'a b', '\u0001'].filter((v) => !re.test(v));
          if (bad.length)
            list.push(fc.constantFrom(...bad).map((v) => mutation(`not matching ${where}${key}`, set(key, v))));
        }
        const badFormat: Record<string, string[]> = {
          uuid: NOT_UUID,
          email: ['not-an-email', 'a@', '@b.test', 'a b@c.test'],
          'date-time': ['yesterday', '2024-13-45T00:00:00Z', '2024-01-01'],
          uri: ['not a url', 'ftp://example.test/x', 'javascript:alert(1)', '//no-scheme'],
        };
        const badOfFormat = s.format ? badFormat[s.format] : undefined;
        if (badOfFormat) {
          list.push(
            fc.constantFrom(...badOfFormat).map((v) => mutation(`bad ${s.format} ${where}${key}`, set(key, v))),
          );
        }
        // NUL: never storable text (PostgreSQL refuses it), so it must be a 400, not a 500.
        list.push(
          fc
            .tuple(valueFor(s, key, { pools: emptyPools(), receiverUrl: 'http://127.0.0.1:9', ownerId: '' }), fc.nat())
            .map(([v, at]) => {
              const value = typeof v === 'string' ? v : '';
              const i = value.length ? at % value.length : 0;
              return mutation(`NUL in ${where}${key}`, set(key, `${value.slice(0, i)}\u0000${value.slice(i)}`));
            }),
        );
      }
      if (s.type === 'array') {
        if ((s.minItems ?? 0) > 0) list.push(fc.constant(mutation(`empty array ${where}${key}`, set(key, []))));
        if (s.maxItems !== undefined && path.length === 0) {
          list.push(
            fc.constant(
              mutation(`too many items ${where}${key} (${s.maxItems + 1})`, (r) => {
                const current = (jsonOf(r) as Record<string, unknown>)[key];
                const item = Array.isArray(current) && current.length ? current[0] : 'x';
                return set(
                  key,
                  Array.from({ length: s.maxItems + 1 }, () => item),
                )(r);
              }),
            ),
          );
        }
        if (s.uniqueItems) {
          list.push(
            fc.constant(
              mutation(`repeated items ${where}${key}`, (r) => {
                const current = (jsonOf(r) as Record<string, unknown>)[key];
                const item = Array.isArray(current) && current.length ? current[0] : resolve(s.items).enum?.[0];
                return set(key, [item, item])(r);
              }),
            ),
          );
        }
      }
      if (s.type === 'object' && !s.properties) {
        list.push(
          fc
            .constantFrom<[string, unknown]>(['nul\u0000key', 1], ['k', 'nul\u0000value'], ['k', { deep: 'a\u0000' }])
            .map(([k, v]) => mutation(`NUL in ${where}${key}`, set(key, { [k]: v }))),
        );
      }
    }
  }

  list.push(
    fc.constantFrom<unknown>([], ['x']).map((json) => ({
      label: `top-level ${JSON_TYPE(json)} body`,
      apply: (r) => ({ ...r, body: { raw: JSON.stringify(json), contentType: 'application/json' } }),
    })),
    // Valid JSON that is no object: refused as such, not as malformed JSON.
    fc
      .constantFrom<[unknown, string]>(
        [null, 'null'],
        [42, 'a number'],
        [-0.5, 'a number'],
        ['text', 'a string'],
        ['', 'a string'],
        [true, 'true'],
        [false, 'false'],
      )
      .map(([json, got]) => ({
        label: `top-level ${JSON_TYPE(json)} body`,
        apply: (r) => ({
          ...r,
          body: { raw: JSON.stringify(json), contentType: 'application/json' },
          answer: { status: 400, code: 'validation', error: new RegExp(`^body: expected a JSON object, got ${got}$`) },
        }),
      })),
    fc.integer({ min: 0, max: 7 }).map((variant) => ({
      label: `malformed JSON #${variant}`,
      apply: (r) => {
        const valid = JSON.stringify(jsonOf(r));
        const raws = [
          valid.slice(0, -1),
          `${valid}}`,
          `${valid.slice(0, -1)},}`,
          valid.replace(/"/g, "'"),
          '{"a":}',
          '{"a": NaN}',
          '['.repeat(100_000),
          `\u0000${valid}`,
        ];
        const raw = defined(raws[variant], `malformed JSON #${variant}`);
        return { ...r, body: { raw, contentType: 'application/json' } };
      },
    })),
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        'json',
      )
      .map((contentType) => ({
        label: `content-type ${contentType}`,
        apply: (r) => ({ ...r, body: { raw: JSON.stringify(jsonOf(r)), contentType } }),
      })),
  );
  if ((body.required ?? []).length) {
    list.push(fc.constant({ label: 'no body', apply: (r: FuzzRequest) => ({ ...r, body: undefined }) }));
  }
  return list;
}

function parameterMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const list: fc.Arbitrary<Mutation>[] = [];
  if (op.pathParams.length) {
    list.push(
      fc
        .tuple(
          fc.constantFrom(...op.pathParams.map((p) => p.name)),
          fc.oneof(
            fc.constantFrom(...NOT_UUID),
            fc.constant('a'.repeat(5000)),
            fc.uuid().map((u) => `${u}x`),
          ),
        )
        .map(([name, value]) => ({
          label: `path ${name} = ${JSON.stringify(value.slice(0, 40))}`,
          apply: (r) => ({ ...r, params: { ...r.params, [name]: value } }),
        })),
      // Sent as is: a path that does not percent-decode, alone or after a valid id.
      fc
        .tuple(
          fc.constantFrom(...op.pathParams.map((p) => p.name)),
          fc.constantFrom(...MALFORMED_ESCAPES),
          fc.constantFrom('', 'a', '00000000-0000-4000-8000-000000000000'),
        )
        .map(([name, malformed, before]) => ({
          label: `path ${name} with malformed escape ${before}${malformed}`,
          apply: (r) => ({
            ...r,
            rawParams: { ...r.rawParams, [name]: `${before}${malformed}` },
            answer: {
              status: 400,
              code: 'bad_request',
              error: new RegExp(`^Malformed percent-escape in path /api/v1/.*${before}${malformed}`),
            },
          }),
        })),
    );
  }
  for (const [where, params] of [
    ['query', op.queryParams],
    ['headers', op.headerParams],
  ] as const) {
    for (const p of params) {
      const s = resolve(p.schema);
      const bad: (string | string[])[] = [];
      if (s.type === 'integer' || s.type === 'number') {
        bad.push('abc', '1.5', 'NaN', 'Infinity', '1,2', '--1', '99999999999999999999999');
        if (s.minimum !== undefined) bad.push(String(s.minimum - 1));
        if (s.maximum !== undefined) bad.push(String(s.maximum + 1));
      }
      if (s.format === 'uuid') bad.push(...NOT_UUID.filter((v) => !v.includes('\u0000')));
      if (s.format === 'date-time') bad.push('yesterday', '2024-13-45T00:00:00Z', '1700000000');
      if (s.enum) bad.push(`not-${s.enum[0]}`);
      if (s.type === 'string' && s.maxLength !== undefined) bad.push('a'.repeat(s.maxLength + 1));
      if (s.type === 'string' && (s.minLength ?? 0) > 0) bad.push('');
      if (s.pattern) bad.push(...['a b', '\u00e9', 'x'.repeat(300)].filter((v) => !new RegExp(s.pattern).test(v)));
      if (where === 'query' && (bad.length || s.type === 'string')) bad.push(['1', '2']);
      // Header values are ASCII: fetch refuses others before sending.
      const sendable = where === 'headers' ? bad.filter((v) => typeof v === 'string' && /^[\x20-\x7e]*$/.test(v)) : bad;
      if (sendable.length) {
        list.push(
          fc.constantFrom(...sendable).map((value) => ({
            label: `${where} ${p.name} = ${JSON.stringify(value).slice(0, 60)}`,
            apply: (r) => ({ ...r, [where]: { ...r[where], [p.name]: value } }),
          })),
        );
      }
      if (p.required) {
        list.push(
          fc.constant({
            label: `missing ${where} ${p.name}`,
            apply: (r: FuzzRequest) => {
              const { [p.name]: _, ...rest } = r[where];
              return { ...r, [where]: rest };
            },
          }),
        );
      }
    }
  }
  return list;
}

const KEY_LIKE = fc.stringMatching(/^[A-Za-z0-9]{64}$/);

function authMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  if (op.isPublic) return [];
  const raw = (label: string, authorization?: string, cookie?: string): Mutation => ({
    label,
    apply: (r) => ({ ...r, auth: { kind: 'raw', authorization, cookie } }),
  });
  const list: fc.Arbitrary<Mutation>[] = [
    fc
      .oneof(
        fc.constantFrom(
          'Basic dXNlcjpwYXNz',
          'Bearer',
          'Bearer ',
          'Bearer svc_',
          'Bearer svc_short',
          'Digest username="x", realm="y"',
          'Negotiate YIIB',
          `Bearer ${'a'.repeat(8000)}`,
          'svc_',
          'Bearer svc_abc def',
        ),
        KEY_LIKE.map((k) => `Bearer svc_${k}`),
        KEY_LIKE.map((k) => `Token svc_${k}`),
        KEY_LIKE.map((k) => `svc_${k}`),
      )
      .map((authorization) => raw(`authorization ${authorization.slice(0, 40)}`, authorization)),
    fc
      .oneof(
        fc.constantFrom(
          'service_session=%E0%A4%A',
          'service_session=',
          'service_session',
          '=;;;',
          ';',
          'service_session="quoted"',
          'service_session=a; service_session=b',
          'other=1',
          `service_session=${'%'.repeat(300)}`,
        ),
        KEY_LIKE.map((k) => `service_session=${k}`),
        KEY_LIKE.map((k) => `theme=dark; service_session=${k}; x=1`),
      )
      .map((cookie) => raw(`cookie ${cookie.slice(0, 40)}`, undefined, cookie)),
  ];
  if (op.scope) {
    // A key with the other scope only.
    const other = op.scope === 'write' ? 'read' : 'write';
    list.push(
      fc.constant<Mutation>({
        label: `key without the ${op.scope} scope`,
        apply: (r) => ({ ...r, auth: { kind: 'scoped', permissions: [other] } }),
      }),
    );
  }
  if (op.method !== 'GET') {
    list.push(
      fc.constant<Mutation>({
        label: 'cookie write without X-Requested-With',
        apply: (r) => ({
          ...r,
          auth: SELF_DESTRUCTIVE.has(op.id)
            ? { kind: 'fresh', role: 'viewer', via: 'session', csrf: false }
            : { kind: 'session', csrf: false },
        }),
      }),
    );
  }
  return list;
}

/** A request of an operation made invalid by one mutation (a wrong body, parameter or credentials). */
export function invalidRequest(op: Operation, ctx: GenContext): fc.Arbitrary<FuzzRequest> {
  // Credentials are refused before anything else is read: mutations of the request itself come more often.
  const mutations = [
    ...bodyMutations(op).map((arbitrary) => ({ arbitrary, weight: 3 })),
    ...parameterMutations(op).map((arbitrary) => ({ arbitrary, weight: 3 })),
    ...authMutations(op).map((arbitrary) => ({ arbitrary, weight: 1 })),
  ];
  if (!mutations.length) return fc.constant(undefined as never);
  return fc
    .tuple(validRequest(op, ctx), fc.oneof(...mutations))
    .map(([request, m]) => ({ ...m.apply(request), mutation: m.label }));
}

/** Whether any mutation applies (an operation without body, parameters or credentials has no invalid form). */
export const hasInvalidForm = (op: Operation) =>
  bodyMutations(op).length + parameterMutations(op).length + authMutations(op).length > 0;

// ---- Edge requests: custom fields nested thousands deep, or bodies near 1 MB -----------------------------

const MB = 1024 * 1024;

/** The objects of an operation's body that hold `custom_fields` (the top level, or import rows). */
const customFieldSlots = (op: Operation) =>
  op.body ? objectSlots(op.body).filter(({ schema }) => schema.properties?.custom_fields) : [];

export const hasCustomFields = (op: Operation) => customFieldSlots(op).length > 0;

/** JSON text of a value `depth` levels deep: objects, arrays, or both by turns (too deep for JSON.stringify). */
function nestedText(depth: number, shape: 'object' | 'array' | 'mixed'): string {
  const opens = Array.from({ length: depth }, (_, i) =>
    shape === 'array' || (shape === 'mixed' && i % 2) ? '[' : '{"k":',
  );
  return `${opens.join('')}"leaf"${opens
    .map((o) => (o === '[' ? ']' : '}'))
    .reverse()
    .join('')}`;
}

/** JSON text of custom fields of many small values, padded with a string to `bytes` (ASCII) less `rest`. */
function filledText(bytes: number, rest: number, shape: 'string' | 'keys' | 'array'): string {
  const count = Math.floor(bytes / 16);
  const bulk =
    shape === 'keys'
      ? Array.from({ length: count }, (_, i) => `"k${i}":${i % 2},`).join('')
      : shape === 'array'
        ? `"list":[${Array.from({ length: count }, (_, i) => i % 10).join(',')}],`
        : '';
  const unpadded = `{${bulk}"pad":""}`;
  return `{${bulk}"pad":"${'x'.repeat(Math.max(0, bytes - rest - unpadded.length))}"}`;
}

const EDGE = '"__edge_custom_fields__"';

/**
 * A valid request of an operation taking custom fields, with those of its body (or of its first import row)
 * nested 1,000 to 5,000 deep, or filling the body to near 1 MB (the limit, up to one byte over it): far past
 * the bounds of custom fields, a 400 naming them (a 413 over 1 MB; an import's row is an error result).
 * The body is JSON text (JSON.stringify overflows the stack on such depths), printed as its label.
 */
export function edgeRequest(op: Operation, ctx: GenContext): fc.Arbitrary<FuzzRequest> {
  const slots = customFieldSlots(op);
  const deep = fc
    .tuple(fc.integer({ min: 1000, max: 5000 }), fc.constantFrom('object', 'array', 'mixed') as fc.Arbitrary<'object'>)
    .map(([depth, shape]) => ({
      label: `custom_fields ${depth} deep (${shape})`,
      fields: () => `{"deep":${nestedText(depth, shape)}}`,
    }));
  const huge = fc
    .tuple(
      fc.oneof(fc.integer({ min: MB - 64 * 1024, max: MB }), fc.constant(MB + 1)),
      fc.constantFrom('string', 'keys', 'array') as fc.Arbitrary<'string'>,
    )
    .map(([bytes, shape]) => ({
      label: `custom_fields filling the body to ${bytes} bytes (${shape})`,
      fields: (rest: number) => filledText(bytes, rest, shape),
      tooLarge: bytes > MB,
    }));
  return fc
    .tuple(validRequest(op, ctx), fc.constantFrom(...slots), fc.oneof(deep, huge))
    .map(([request, { path }, edge]) => {
      const text = JSON.stringify(
        editAt(jsonOf(request), path, (o) => {
          o.custom_fields = JSON.parse(EDGE);
        }),
      );
      const raw = text.replace(EDGE, () => edge.fields(text.length - EDGE.length));
      const body = { raw, contentType: 'application/json', [fc.toStringMethod]: () => `<${edge.label}>` };
      const item = typeof path.at(-1) === 'number' ? (path.at(-1) as number) : undefined;
      const answer =
        item !== undefined
          ? undefined
          : 'tooLarge' in edge && edge.tooLarge
            ? { status: 413, code: 'payload_too_large' }
            : { status: 400, code: 'validation', error: /(^|; )custom_fields: / };
      return { ...request, body, mutation: edge.label, item, answer };
    });
}

// ---- Wrong methods on the document's paths ---------------------------------------------------------------

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const pathPattern = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);

/**
 * The Allow header a URL path gets: the methods of every path of the document it matches (a literal
 * segment may also be another path's parameter), HEAD with GET, and OPTIONS.
 */
export function allowOf(urlPath: string): string {
  const allowed = new Set(['OPTIONS']);
  for (const op of operations()) {
    if (!pathPattern(op.path).test(urlPath)) continue;
    allowed.add(op.method);
    if (op.method === 'GET') allowed.add('HEAD');
  }
  return METHOD_ORDER.filter((m) => allowed.has(m)).join(', ');
}

/**
 * A request to a path of the document (its operations `ops`) with a method it lacks (HEAD too where it has
 * no GET), path parameters of existing objects or not, any credentials, with or without a body; undefined
 * when the path lacks none.
 */
export function wrongMethodRequest(
  ops: Operation[],
  ctx: GenContext,
): fc.Arbitrary<{ method: string; request: FuzzRequest }> | undefined {
  const [first] = ops;
  if (!first) return undefined;
  const path = first.path;
  // Those of other paths too: GET /addresses/batch-update is GET /addresses/{id}.
  const allowed = allowOf(path.replace(/\{\w+\}/g, 'x')).split(', ');
  const wrong = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !allowed.includes(m));
  if (!wrong.length) return undefined;
  const params = fc.record(
    Object.fromEntries(
      first.pathParams.map((p) => {
        const kind = kindOfPathParam(path, p.name);
        const existing = kind ? entityOf(kind, ctx).map((e) => e.id) : fc.uuid();
        return [p.name, fc.oneof(existing, fc.constantFrom(...NOT_UUID))];
      }),
    ) as Record<string, fc.Arbitrary<string>>,
  );
  return fc
    .record({
      method: fc.constantFrom(...wrong),
      params,
      body: fc.option(fc.constant<Body>({ json: {} }), { nil: undefined }),
      auth: fc.constantFrom<Auth>({ kind: 'none' }, { kind: 'key' }, { kind: 'session', csrf: true }),
    })
    .map(({ method, params, body, auth }) => ({
      method,
      // fetch sends no body with GET or HEAD.
      request: { params, query: {}, headers: {}, body: method === 'GET' || method === 'HEAD' ? undefined : body, auth },
    }));
}

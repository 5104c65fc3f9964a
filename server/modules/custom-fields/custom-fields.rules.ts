/**
 * The rules of typed custom fields, as pure functions: what a value of each type is, what a write's
 * `custom_fields` must hold given the definitions of its kind, and what a `cf_` filter means. The service applies
 * them; the list filters' SQL (subnet-usage.repo, address-page.repo) is the same rules, and the whole subnet list
 * applies `matchesFilter` to the rows it read.
 */
import type { z } from 'zod';
import {
  CUSTOM_FIELD_FILTER,
  CUSTOM_FIELD_TEXT_MAX_LENGTH,
  type CustomFieldDefinition,
  type CustomFieldType,
  type CustomFieldValue,
} from '../../../contract/custom-fields.contract';
import { badRequest } from '../../errors';
import { parseIp } from '../../ipam';

export type FieldType = z.infer<typeof CustomFieldType>;
export type FieldValue = z.infer<typeof CustomFieldValue>;
/** A definition as the rules need it. */
export type Rule = Pick<z.infer<typeof CustomFieldDefinition>, 'name' | 'type' | 'required' | 'default' | 'choices'>;

/** A date as the API writes it; the filters compare such strings as text, which orders them as days. */
const DATE_FORM = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** YYYY-MM-DD of a day that exists (year 0001 to 9999). */
function isDate(value: string) {
  if (!DATE_FORM.test(value)) return false;
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const days = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return year >= 1 && days !== undefined && day >= 1 && day <= days;
}

function isHttpUrl(value: string) {
  if (value.length > CUSTOM_FIELD_TEXT_MAX_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** What is wrong with `value` as a value of the field, or null when it is one. */
export function problemOf(rule: Pick<Rule, 'type' | 'choices'>, value: unknown): string | null {
  switch (rule.type) {
    case 'text':
      return typeof value === 'string' && value.length <= CUSTOM_FIELD_TEXT_MAX_LENGTH
        ? null
        : `must be text of at most ${CUSTOM_FIELD_TEXT_MAX_LENGTH} characters`;
    case 'integer':
      return Number.isSafeInteger(value)
        ? null
        : 'must be an integer (a JSON number without a fraction, within ±2^53−1)';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && isDate(value) ? null : 'must be a date as YYYY-MM-DD';
    case 'url':
      return typeof value === 'string' && isHttpUrl(value) ? null : 'must be an http or https URL';
    case 'ip':
      return typeof value === 'string' && parseIp(value) ? null : 'must be an IPv4 or IPv6 address';
    case 'select': {
      const choices = rule.choices ?? [];
      if (typeof value === 'string' && choices.includes(value)) return null;
      const shown = choices.slice(0, 10).map((choice) => JSON.stringify(choice));
      return `must be one of ${shown.join(', ')}${choices.length > shown.length ? ' …' : ''}`;
    }
  }
}

type Fields = Record<string, unknown>;

const isUnset = (value: unknown) => value === undefined || value === null;

/**
 * The `custom_fields` a new resource is created with: those given, each defined one valid, and the defaults of the
 * defined ones not given. A required field neither given nor defaulted, or an invalid value, is a 400 naming
 * `custom_fields.<name>`. Keys without a definition pass as given.
 */
export function fieldsForCreate(rules: readonly Rule[], given: Fields | undefined): Fields | undefined {
  if (rules.length === 0) return given;
  const fields: Fields = { ...given };
  for (const rule of rules) {
    const value = fields[rule.name];
    if (!isUnset(value)) assertValid(rule, value);
    else if (rule.default !== undefined) fields[rule.name] = rule.default;
    else if (rule.required) throw badRequest(`custom_fields.${rule.name}: is required`);
  }
  return given === undefined && Object.keys(fields).length === 0 ? undefined : fields;
}

/**
 * The `custom_fields` a PATCH gives (the whole object, replacing the stored one): each defined value valid, and
 * no required field left out or null (400 naming it).
 */
export function assertFieldsForUpdate(rules: readonly Rule[], given: Fields) {
  for (const rule of rules) {
    const value = given[rule.name];
    if (!isUnset(value)) assertValid(rule, value);
    else if (rule.required) throw badRequest(`custom_fields.${rule.name}: is required; it cannot be removed`);
  }
}

function assertValid(rule: Rule, value: unknown) {
  const problem = problemOf(rule, value);
  if (problem) throw badRequest(`custom_fields.${rule.name}: ${problem}`);
}

/** Whether a stored value fails the rule: what a definition's report counts (a missing one only when required). */
export const failsRule = (rule: Rule, value: unknown) =>
  isUnset(value) ? rule.required : problemOf(rule, value) !== null;

/** Comparisons a range filter makes: `cf_<name>__gte=` … */
export const rangeOps = ['gte', 'lte', 'gt', 'lt'] as const;
export type RangeOp = (typeof rangeOps)[number];

/** The `cf_` filters of a list: values the field must equal, and bounds of integer and date fields. */
export interface CustomFieldFilter {
  equals: Record<string, FieldValue>;
  ranges: { name: string; type: 'integer' | 'date'; op: RangeOp; value: number | string }[];
}

/** The value of a filter parameter as a value of the field's type: text as given, numbers and booleans parsed. */
function filterValue(rule: Rule, text: string): unknown {
  if (rule.type === 'integer') return /^-?[0-9]{1,16}$/.test(text) ? Number(text) : text;
  if (rule.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/**
 * The `cf_` parameters of a list's query as a filter over the fields of the kind (`rules`); null when there are
 * none. A parameter naming no field of the kind, a range on a field that is not an integer or a date, or a value
 * not of the field's type is a 400 naming the parameter.
 */
export function filterOf(
  rules: readonly Rule[],
  kind: string,
  parameters: Record<string, string>,
): CustomFieldFilter | null {
  const filter: CustomFieldFilter = { equals: {}, ranges: [] };
  for (const [key, text] of Object.entries(parameters)) {
    const [, name, op] = CUSTOM_FIELD_FILTER.exec(key) ?? [];
    if (name === undefined) throw badRequest(`${key}: not a parameter of this list`);
    const rule = rules.find((r) => r.name === name);
    if (!rule) throw badRequest(`${key}: no custom field ${name} is defined for kind ${kind}`);
    const value = filterValue(rule, text);
    const problem = problemOf(rule, value);
    if (problem) throw badRequest(`${key}: ${problem}`);
    if (op === undefined) filter.equals[name] = value as FieldValue;
    else if (rule.type === 'integer' || rule.type === 'date') {
      filter.ranges.push({ name, type: rule.type, op: op as RangeOp, value: value as number | string });
    } else throw badRequest(`${key}: ranges are for integer and date fields; ${name} is ${rule.type}`);
  }
  return Object.keys(filter.equals).length + filter.ranges.length > 0 ? filter : null;
}

const compare = (a: number | string, op: RangeOp, b: number | string) =>
  op === 'gte' ? a >= b : op === 'lte' ? a <= b : op === 'gt' ? a > b : a < b;

/**
 * Whether stored custom fields pass the filter, as its SQL decides: equal values (a number equals the same number),
 * and bounds compared only on values of the field's type (an integer; a YYYY-MM-DD string, compared as text).
 */
export function matchesFilter(filter: CustomFieldFilter, fields: Fields | null | undefined): boolean {
  if (!fields) return false;
  for (const [name, value] of Object.entries(filter.equals)) if (fields[name] !== value) return false;
  return filter.ranges.every(({ name, type, op, value }) => {
    const stored = fields[name];
    if (type === 'integer') return typeof stored === 'number' && Number.isInteger(stored) && compare(stored, op, value);
    return typeof stored === 'string' && DATE_FORM.test(stored) && compare(stored, op, value);
  });
}

/**
 * Tags as every tagged resource reads and filters them (the tags module owns the tags themselves): what a
 * representation shows, and `?tag=` / `?tag_match=` read into a filter.
 */
import { TAG_NAME_MAX, TAGS_PER_RESOURCE_MAX } from '../../../contract/tags.contract';
import { badRequest } from '../../errors';

/** A resource's `tags` as its representation shows them: omitted when it has none. */
export const tagsShown = (tags: readonly string[] | undefined) => (tags && tags.length > 0 ? { tags: [...tags] } : {});

/** A resource's `tags` as its activity entries record them: null (unset) when it has none. */
export const tagsRecorded = (tags: readonly string[] | undefined) => (tags && tags.length > 0 ? [...tags] : null);

/** `?tag=`: resources carrying any of `names`, or all of them with `all`. */
export interface TagFilter {
  names: string[];
  all: boolean;
}

/** The tag filter of a list's query, or undefined when it has none (a 400 naming `tag` for an empty or long name). */
export function tagFilterOf(query: { tag?: string | string[]; tag_match?: 'any' | 'all' }): TagFilter | undefined {
  if (query.tag === undefined) return undefined;
  const given = (Array.isArray(query.tag) ? query.tag : [query.tag]).flatMap((text) => text.split(','));
  const names = [...new Set(given.map((name) => name.trim()))];
  if (names.some((name) => name === '')) throw badRequest('tag: an empty tag name');
  const long = names.find((name) => name.length > TAG_NAME_MAX);
  if (long !== undefined) throw badRequest(`tag: ${JSON.stringify(long)} is longer than ${TAG_NAME_MAX} characters`);
  if (names.length > TAGS_PER_RESOURCE_MAX) throw badRequest(`tag: at most ${TAGS_PER_RESOURCE_MAX} tags`);
  return { names, all: query.tag_match === 'all' };
}

/** Whether a resource carrying `tags` passes the filter (as the lists' SQL applies it). */
export const passesTags = (filter: TagFilter | undefined, tags: readonly string[]) =>
  filter === undefined ||
  (filter.all ? filter.names.every((name) => tags.includes(name)) : filter.names.some((name) => tags.includes(name)));

/**
 * The subnets of one address space as a tree grid (WAI-ARIA treegrid): a row per subnet, nested by parent,
 * with expand and collapse by mouse and keyboard (arrows, Home, End, Page Up/Down, Enter opens). Only the
 * rows on screen are in the DOM: the visible rows are flattened and windowed at a fixed row height, so a
 * space of 10,000 subnets stays as quick as one of ten.
 */
import { type KeyboardEvent, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { api } from '../api';
import { Link, navigate } from '../router';
import './subnet-tree.css';

export type SubnetItem = Awaited<ReturnType<typeof api.subnets.list>>[number];

/** Height of a row and of the header in px (subnet-tree.css says the same). */
const ROW = 40;
/** Rows rendered beyond each edge of the viewport. */
const OVERSCAN = 8;

interface TreeNode {
  subnet: SubnetItem;
  parent: TreeNode | null;
  children: TreeNode[];
}

/** The forest of a list in address order: a subnet whose parent is not in the list is a root. */
function buildForest(subnets: SubnetItem[]) {
  const byId = new Map<string, TreeNode>();
  for (const subnet of subnets) byId.set(subnet.id, { subnet, parent: null, children: [] });
  const roots: TreeNode[] = [];
  for (const node of byId.values()) {
    const parent = node.subnet.parent_id ? byId.get(node.subnet.parent_id) : undefined;
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else roots.push(node);
  }
  return { roots, byId };
}

const ancestorIds = (node: TreeNode) => {
  const ids: string[] = [];
  for (let up = node.parent; up; up = up.parent) ids.push(up.subnet.id);
  return ids;
};

/** Whether a subnet matches a filter text (lower case): its network or its name contains it. */
export const matchesText = (subnet: SubnetItem, text: string) =>
  subnet.network.includes(text) || subnet.name.toLowerCase().includes(text);

interface Row {
  node: TreeNode;
  level: number;
  position: number;
  siblings: number;
}

/** The rows on show: depth first, into expanded subnets, only those kept by the filter (null keeps all). */
function flatten(roots: TreeNode[], expanded: Set<string>, kept: Set<string> | null): Row[] {
  const rows: Row[] = [];
  const visit = (nodes: TreeNode[], level: number) => {
    const shown = kept ? nodes.filter((node) => kept.has(node.subnet.id)) : nodes;
    shown.forEach((node, index) => {
      rows.push({ node, level, position: index + 1, siblings: shown.length });
      if (expanded.has(node.subnet.id)) visit(node.children, level + 1);
    });
  };
  visit(roots, 1);
  return rows;
}

/**
 * What each tree had open, by its label, for as long as the console is open (in memory only): coming back
 * from a subnet's page shows the tree as it was left.
 */
const remembered = new Map<string, Set<string>>();

export const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/**
 * A count of addresses for a narrow column: in full up to a trillion, past it (IPv6) as the power of two it
 * is, e.g. 2^64 for a /64.
 */
function shortCount(count: number | bigint) {
  const big = BigInt(count);
  if (big < 10n ** 12n) return count.toLocaleString();
  const bits = big.toString(2).length - 1;
  return big === 1n << BigInt(bits) ? `2^${bits}` : Number(big).toExponential(2);
}

/** How full a subnet is, in words: "3 of 254 (1.2%)", or that it is a container left out of the figures. */
function usageInWords(subnet: SubnetItem) {
  if (subnet.used_count === undefined || subnet.total_count === undefined) return 'not tracked';
  return `${subnet.used_count.toLocaleString()} of ${shortCount(subnet.total_count)} (${percent.format(subnet.utilization)})`;
}

export function SubnetTree({
  label,
  subnets,
  filter,
  reveal,
}: {
  /** Names the grid, e.g. "Subnets of the global space". */
  label: string;
  /** The subnets of one space, in address order. */
  subnets: SubnetItem[];
  /** Lower-case filter text; '' shows every subnet. */
  filter: string;
  /** A subnet to show (just created): its ancestors are expanded and it is scrolled to once. */
  reveal?: string;
}) {
  const { roots, byId } = useMemo(() => buildForest(subnets), [subnets]);
  // A filter keeps its matches and their ancestors, which it opens; the person's own choices hold until
  // the filter changes (the expansion belongs to the filter it was made under).
  const kept = useMemo(() => {
    if (!filter) return null;
    const ids = new Set<string>();
    for (const node of byId.values()) {
      if (!matchesText(node.subnet, filter)) continue;
      ids.add(node.subnet.id);
      for (const id of ancestorIds(node)) ids.add(id);
    }
    return ids;
  }, [byId, filter]);
  const [expansion, setExpansion] = useState(() => ({ filter: '', ids: remembered.get(label) ?? new Set<string>() }));
  useEffect(() => {
    if (!expansion.filter) remembered.set(label, expansion.ids);
  }, [expansion, label]);
  const expanded = useMemo(() => {
    if (expansion.filter === filter) return expansion.ids;
    if (!kept) return new Set<string>();
    // Under a new filter: open every kept subnet that has kept children.
    return new Set([...kept].filter((id) => byId.get(id)?.children.some((child) => kept.has(child.subnet.id))));
  }, [expansion, filter, kept, byId]);
  const rows = useMemo(() => flatten(roots, expanded, kept), [roots, expanded, kept]);

  const setExpanded = (change: (ids: Set<string>) => void) => {
    const ids = new Set(expanded);
    change(ids);
    setExpansion({ filter, ids });
  };
  const toggle = (id: string) =>
    setExpanded((ids) => {
      if (!ids.delete(id)) ids.add(id);
    });

  const grid = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const element = grid.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The row with the tab stop (roving tabindex), by id so that it survives re-renders of new data.
  const [activeId, setActiveId] = useState<string | null>(null);
  const focusNext = useRef(false);
  const activeIndex = Math.max(
    0,
    rows.findIndex((row) => row.node.subnet.id === activeId),
  );

  // Fewer rows (collapsed, filtered) shorten the box, whose scroll the browser then clamps without telling.
  const top = Math.min(scrollTop, Math.max(0, (rows.length + 1) * ROW - height));
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
  const shown = rows.slice(first, last);
  // The tab stop is the active row when it is rendered, else the first rendered one: the grid stays reachable.
  const tabStop = activeIndex >= first && activeIndex < last ? activeIndex : first;

  /** Scrolls so that row `index` is in full view (below the sticky header). */
  const scrollToRow = (index: number) => {
    const element = grid.current;
    if (!element) return;
    let top = element.scrollTop;
    if (index * ROW < top) top = index * ROW;
    else if ((index + 2) * ROW > top + element.clientHeight) top = (index + 2) * ROW - element.clientHeight;
    element.scrollTop = top;
    setScrollTop(top);
  };

  // A subnet to reveal: its ancestors are opened, then, once its row exists, it is scrolled to (once).
  const revealed = useRef<string | undefined>(undefined);
  const scrollPending = useRef<string | null>(null);
  useLayoutEffect(() => {
    const node = reveal ? byId.get(reveal) : undefined;
    if (!node || revealed.current === reveal) return;
    revealed.current = reveal;
    scrollPending.current = node.subnet.id;
    const ancestors = ancestorIds(node);
    if (ancestors.some((id) => !expanded.has(id))) setExpansion({ filter, ids: new Set([...expanded, ...ancestors]) });
  }, [reveal, byId, expanded, filter]);
  useLayoutEffect(() => {
    const id = scrollPending.current;
    const index = id ? rows.findIndex((row) => row.node.subnet.id === id) : -1;
    if (index < 0) return;
    scrollPending.current = null;
    setActiveId(id);
    scrollToRow(index);
  });

  useLayoutEffect(() => {
    if (!focusNext.current) return;
    focusNext.current = false;
    grid.current?.querySelector<HTMLElement>(`[data-index="${activeIndex}"]`)?.focus({ preventScroll: true });
  });

  const moveTo = (index: number) => {
    const target = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!target) return;
    setActiveId(target.node.subnet.id);
    scrollToRow(rows.indexOf(target));
    focusNext.current = true;
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const row = rows[activeIndex];
    const target = event.target as HTMLElement;
    // Keys on a row, or on the toggle a click focused; Enter on the link is the link's own.
    if (!row || !target.closest('tbody tr') || (event.key === 'Enter' && target.tagName !== 'TR')) return;
    const { node } = row;
    const id = node.subnet.id;
    const open = expanded.has(id);
    const page = Math.max(1, Math.floor(height / ROW) - 2);
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(activeIndex + 1),
      ArrowUp: () => moveTo(activeIndex - 1),
      Home: () => moveTo(0),
      End: () => moveTo(rows.length - 1),
      PageDown: () => moveTo(activeIndex + page),
      PageUp: () => moveTo(activeIndex - page),
      ArrowRight: () => {
        if (node.children.length === 0) return;
        if (!open) toggle(id);
        else moveTo(activeIndex + 1);
      },
      ArrowLeft: () => {
        if (open) toggle(id);
        else if (node.parent) moveTo(rows.findIndex((r) => r.node === node.parent));
      },
      Enter: () => navigate(`/subnets/${id}`),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  return (
    // The scroll box: the rows drawn, between the room of those above and below (the rows say their own index).
    <div ref={grid} className="subnet-tree" onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
      <div style={{ height: first * ROW }} />
      {/* biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: a table is the treegrid of WAI-ARIA's own example */}
      <table role="treegrid" aria-label={label} aria-rowcount={rows.length + 1} onKeyDown={onKeyDown}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Network</th>
            <th scope="col">Name</th>
            <th scope="col">Utilisation</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row, offset) => {
            const index = first + offset;
            const { subnet, children } = row.node;
            const open = expanded.has(subnet.id);
            return (
              <tr
                key={subnet.id}
                data-index={index}
                tabIndex={index === tabStop ? 0 : -1}
                aria-rowindex={index + 2}
                aria-level={row.level}
                aria-posinset={row.position}
                aria-setsize={row.siblings}
                aria-expanded={children.length > 0 ? open : undefined}
                onFocus={() => setActiveId(subnet.id)}
              >
                <td>
                  <span className="network" style={{ paddingLeft: `${(row.level - 1) * 1.25}rem` }}>
                    {children.length > 0 ? (
                      // The row takes the keyboard (arrows); the button is for the pointer, so not a tab stop.
                      <button
                        type="button"
                        className="toggle"
                        tabIndex={-1}
                        aria-label={`${open ? 'Collapse' : 'Expand'} ${subnet.network} (${children.length} inside)`}
                        onClick={() => toggle(subnet.id)}
                      >
                        {open ? '▾' : '▸'}
                      </button>
                    ) : (
                      <span className="toggle-space" />
                    )}
                    <Link to={`/subnets/${subnet.id}`} tabIndex={-1}>
                      {subnet.network}
                    </Link>
                  </span>
                </td>
                <td>{subnet.name}</td>
                <td>
                  <span className="usage-cell">
                    {subnet.used_count !== undefined && (
                      <meter
                        aria-label={`Utilisation of ${subnet.network}`}
                        min={0}
                        max={1}
                        low={0.7}
                        high={0.9}
                        optimum={0}
                        value={subnet.utilization}
                      />
                    )}
                    {usageInWords(subnet)}
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div style={{ height: (rows.length - last) * ROW }} />
    </div>
  );
}

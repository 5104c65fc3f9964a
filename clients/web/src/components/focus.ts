/**
 * A ref that moves the focus to its element when it appears (a secret just shown, a result): keyboard and
 * screen-reader users land on what changed. Module-level, so React calls it on mount only.
 */
export const focusOnMount = (element: HTMLElement | null) => element?.focus();

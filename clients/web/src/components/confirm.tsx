/** The inside of a dialog that asks before an act that cannot be undone (revoke, remove, delete, rotate). */
import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorNotice } from './errors';

/**
 * What the act does (`children`), the API's refusal if any, the danger button that runs it and a way out.
 * Meant for a Dialog's content: mounted only while the dialog is open, so each opening starts afresh (no
 * error of last time), and `gcTime: 0` keeps nothing of its answer once it is gone (a rotated secret, say).
 */
export function Confirm({
  action,
  run,
  invalidate = [],
  onClose,
  onDone = onClose,
  cancel = 'Cancel',
  children,
}: {
  /** The danger button's label, e.g. "Revoke CI deploy". */
  action: string;
  /** The act: its request to the API. */
  run: () => Promise<unknown>;
  /** The queries the act changes, refreshed before `onDone` (so the list shown has caught up). */
  invalidate?: QueryKey[];
  /** Closes the dialog: on the way out, and once the act is done unless `onDone` goes elsewhere. */
  onClose: () => void;
  onDone?: () => void;
  /** The label of the way out. */
  cancel?: string;
  children: ReactNode;
}) {
  const queryClient = useQueryClient();
  const act = useMutation({
    mutationFn: run,
    gcTime: 0,
    onSuccess: async () => {
      await Promise.all(invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      onDone();
    },
  });
  return (
    <>
      {children}
      <ErrorNotice error={act.error} />
      <div className="form-actions">
        <button type="button" className="danger" disabled={act.isPending} onClick={() => act.mutate()}>
          {action}
        </button>
        <button type="button" onClick={onClose}>
          {cancel}
        </button>
      </div>
    </>
  );
}

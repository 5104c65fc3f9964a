/**
 * The page of a kind of thing subnets refer to (folders, VLANs, VRFs, locations): its list with the counts the
 * API computes, and for editors and admins creating, editing and deleting one, each in a dialog that shows the
 * API's answer in place.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { useCan } from '../session';
import { Confirm } from './confirm';
import { ErrorNotice, problemOf } from './errors';
import { FormActions, SelectField, TextField } from './form';
import { Dialog, Loaded, Page, Table } from './ui';
import './resource-list.css';

export type Values = Record<string, string>;

export interface Field<T> {
  name: keyof T & string;
  label: string;
  hint?: string;
  type?: 'text' | 'number';
  /** A select of these choices instead of a text box. */
  options?: { value: string; label: string }[];
}

export interface Column<T> {
  label: string;
  cell: (item: T) => ReactNode;
  /** A figure: right-aligned. */
  num?: boolean;
}

export interface ResourceListProps<T extends { id: string }, Body> {
  /** What they are called, in the middle of a sentence: "folders", "VLANs". */
  plural: string;
  /** One of them, as in "New VLAN". */
  noun: string;
  intro?: ReactNode;
  /** The query key of the list, shared with the pages that offer these as choices. */
  queryKey: string;
  list: () => Promise<T[]>;
  create: (body: Body) => Promise<unknown>;
  /** Changes every field of the form (a create's body is a whole update). */
  update: (id: string, body: Body) => Promise<unknown>;
  remove: (id: string) => Promise<unknown>;
  /** The form's fields, the first of them the one an item is named by in the list. */
  fields: [Field<T>, ...Field<T>[]];
  /** The request body of the form's values: `value(name)` is a field's text as typed (the API checks it). */
  body: (value: (name: Field<T>['name']) => string) => Body;
  /** How one is named on its row and its buttons: "VLAN 120", "Lab". */
  name: (item: T) => string;
  /** The columns after the name's. */
  columns: Column<T>[];
  /** What deleting one does to the subnets (and VLANs) that use it. */
  deletion: string;
}

type Editing<T> = { mode: 'create' } | { mode: 'edit' | 'delete'; item: T } | null;

export function ResourceList<T extends { id: string }, Body>(props: ResourceListProps<T, Body>) {
  const { plural, noun, fields } = props;
  const title = plural.charAt(0).toUpperCase() + plural.slice(1);
  const canEdit = useCan('editor');
  const list = useQuery({ queryKey: [props.queryKey], queryFn: () => props.list() });
  const [editing, setEditing] = useState<Editing<T>>(null);
  const close = () => setEditing(null);
  const dialogTitle =
    editing?.mode === 'create'
      ? `New ${noun}`
      : editing
        ? `${editing.mode === 'edit' ? 'Edit' : 'Delete'} ${props.name(editing.item)}`
        : '';

  return (
    <Page
      title={title}
      actions={
        canEdit && (
          <button type="button" className="primary" onClick={() => setEditing({ mode: 'create' })}>
            New {noun}
          </button>
        )
      }
    >
      {props.intro}
      <Loaded query={list}>
        {(items) =>
          items.length === 0 ? (
            <p className="card">No {plural} yet.</p>
          ) : (
            <Table
              className="resource-table"
              caption={title}
              // A column's label and num are its heading.
              headings={[fields[0].label, ...props.columns, canEdit && 'Actions']}
            >
              {items.map((item) => (
                <tr key={item.id}>
                  <th scope="row">{String(item[fields[0].name])}</th>
                  {props.columns.map((column) => (
                    <td key={column.label} className={column.num ? 'num' : undefined}>
                      {column.cell(item)}
                    </td>
                  ))}
                  {canEdit && (
                    <td className="resource-actions">
                      <button type="button" onClick={() => setEditing({ mode: 'edit', item })}>
                        Edit<span className="sr-only"> {props.name(item)}</span>
                      </button>
                      <button type="button" onClick={() => setEditing({ mode: 'delete', item })}>
                        Delete<span className="sr-only"> {props.name(item)}</span>
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
      <Dialog open={editing !== null} title={dialogTitle} onClose={close}>
        {editing?.mode === 'delete' ? (
          <Confirm
            action={`Delete ${props.name(editing.item)}`}
            run={() => props.remove(editing.item.id)}
            invalidate={EVERY_QUERY}
            onClose={close}
          >
            <p>{props.deletion}</p>
          </Confirm>
        ) : (
          editing && <EditForm {...props} item={editing.mode === 'edit' ? editing.item : null} onDone={close} />
        )}
      </Dialog>
    </Page>
  );
}

/** After a change every answer kept may be out of date: counts, names shown on subnets, choices in forms. */
const EVERY_QUERY = [[]]; // the empty key begins every key: every query is refreshed

function useChange<V>(run: (value: V) => Promise<unknown>, onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      onDone();
    },
  });
}

function EditForm<T extends { id: string }, Body>({
  item,
  onDone,
  ...props
}: ResourceListProps<T, Body> & { item: T | null; onDone: () => void }) {
  const [values, setValues] = useState<Values>(() =>
    Object.fromEntries(props.fields.map((field) => [field.name, item ? String(item[field.name] ?? '') : ''])),
  );
  const save = useChange((body: Body) => (item ? props.update(item.id, body) : props.create(body)), onDone);
  const named = save.error ? problemOf(save.error).fields : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Every field has a value from the start (see above): one missing would be an empty box.
    save.mutate(props.body((name) => values[name] ?? ''));
  };
  const action = item ? 'Save' : `Create ${props.noun}`;
  return (
    // The API checks what is typed and its answer is shown next to the field: no second set of rules here.
    <form onSubmit={submit} noValidate>
      {props.fields.map((field) => {
        const common = {
          label: field.label,
          hint: field.hint,
          error: named[field.name],
          value: values[field.name],
        };
        const set = (value: string) => setValues({ ...values, [field.name]: value });
        return field.options ? (
          <SelectField key={field.name} {...common} options={field.options} onChange={(e) => set(e.target.value)} />
        ) : (
          <TextField
            key={field.name}
            {...common}
            type={field.type ?? 'text'}
            inputMode={field.type === 'number' ? 'numeric' : undefined}
            onChange={(e) => set(e.target.value)}
          />
        );
      })}
      {!props.fields.some((field) => field.name in named) && <ErrorNotice error={save.error} />}
      <FormActions label={action} pending={save.isPending} onCancel={onDone} />
    </form>
  );
}

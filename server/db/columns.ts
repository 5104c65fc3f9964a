import { getTableColumns, type Table } from 'drizzle-orm';

/**
 * Every column of `table`, of the row `alias` when given, named as drizzle names a row's fields (`org_id AS
 * "orgId"`): the select or RETURNING list of a raw statement whose rows are the table's rows, derived from the
 * schema, so a column is declared once.
 */
export const columnsOf = (table: Table, alias?: string) =>
  Object.entries(getTableColumns(table))
    .map(([key, column]) => {
      const name = alias ? `${alias}.${column.name}` : column.name;
      return key === column.name ? name : `${name} AS "${key}"`;
    })
    .join(', ');

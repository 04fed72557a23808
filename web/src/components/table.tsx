import type { ComponentChildren } from 'preact';
import { downloadCsv, toCsv } from './csv';

export interface Column<T> {
  label: string;
  /** What the cell shows; text by default. */
  render?: (row: T) => ComponentChildren;
  /** What the CSV holds for this column; omitted columns (actions) are left out of the export. */
  csv?: (row: T) => string | number | null | undefined;
  numeric?: boolean;
}

/** A captioned table; with `csvName`, an export button writing exactly the rows shown. */
export function DataTable<T>(props: { caption: string; columns: Column<T>[]; rows: T[]; csvName?: string; empty?: string; rowKey: (row: T) => string }) {
  const exported = props.columns.filter((c) => c.csv);
  return (
    // Focusable and named: a table wider than a phone scrolls, and keyboard users must be able to scroll it.
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.caption}>
      <table>
        <caption>
          <span>{props.caption}</span>
          {props.csvName && props.rows.length > 0 && (
            <button type="button" class="small" onClick={() => downloadCsv(props.csvName!, toCsv(exported.map((c) => c.label), props.rows.map((r) => exported.map((c) => c.csv!(r)))))}>
              Export CSV<span class="visually-hidden"> of {props.caption}</span>
            </button>
          )}
        </caption>
        <thead>
          <tr>{props.columns.map((c) => <th scope="col" class={c.numeric ? 'num' : undefined}>{c.label}</th>)}</tr>
        </thead>
        <tbody>
          {props.rows.length === 0 && (
            <tr><td colSpan={props.columns.length} class="muted">{props.empty ?? 'Nothing to show.'}</td></tr>
          )}
          {props.rows.map((r) => (
            <tr key={props.rowKey(r)}>
              {props.columns.map((c) => <td class={c.numeric ? 'num' : undefined}>{c.render ? c.render(r) : String(c.csv?.(r) ?? '')}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Import and export: subnets or addresses imported from CSV (pasted, or a file read in the browser), with the
 * API's result for every row; the exports downloaded as CSV files.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, type FormEvent, useId, useState } from 'react';
import { getExportAddressesUrl, getExportSubnetsUrl } from '../../../typescript/src/generated/endpoints';
import { api } from '../api';
import { ErrorNotice } from '../components/errors';
import { SelectField } from '../components/form';
import { COLUMNS, MAX_ROWS, type Parsed, REQUIRED, rowsOfCsv, type What } from '../components/import-rows';
import { Page } from '../components/ui';
import { Link } from '../router';
import { useCan } from '../session';
import './network.css';

export function ImportExportPage(_props: Record<string, string>) {
  const canImport = useCan('editor');
  return (
    <Page title="Import and export">
      {canImport && <Import />}
      <Export />
    </Page>
  );
}

function Import() {
  const id = useId();
  const queryClient = useQueryClient();
  const [what, setWhat] = useState<What>('subnets');
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const run = useMutation({
    mutationFn: async (parsed: Parsed): Promise<Outcome> =>
      parsed.what === 'subnets'
        ? {
            what: 'subnets',
            lines: parsed.lines,
            answer: await api.importExport.importSubnets({ subnets: parsed.rows }),
          }
        : {
            what: 'addresses',
            lines: parsed.lines,
            answer: await api.importExport.importAddresses({ addresses: parsed.rows }),
          },
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const start = () => {
    setProblems([]);
    run.reset();
  };
  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.target;
    const file = input.files?.[0];
    start();
    if (file) setText(await file.text());
    // Its text is in the box now: the same file can be chosen again after a change on disk.
    input.value = '';
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start();
    const parsed = rowsOfCsv(what, text);
    if ('problems' in parsed) setProblems(parsed.problems);
    else run.mutate(parsed);
  };
  const columns = Object.keys(COLUMNS[what]);
  return (
    <section className="card" aria-labelledby="import-title">
      <h2 id="import-title">Import</h2>
      <form onSubmit={submit}>
        <fieldset className="import-what">
          <legend>What to import</legend>
          {(['subnets', 'addresses'] as const).map((choice) => (
            <label key={choice}>
              <input
                type="radio"
                name="what"
                value={choice}
                checked={what === choice}
                onChange={() => {
                  setWhat(choice);
                  start();
                }}
              />
              {choice === 'subnets' ? 'Subnets' : 'Addresses'}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-file`}>CSV file</label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".csv,text/csv"
            onChange={choose}
            aria-describedby={`${id}-file-hint`}
          />
          <p id={`${id}-file-hint`} className="hint">
            Read in your browser and shown below, where you can check it before importing.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-csv`}>CSV</label>
          <textarea
            id={`${id}-csv`}
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            aria-describedby={`${id}-csv-hint`}
          />
          <p id={`${id}-csv-hint`} className="hint">
            A header row naming the columns, then one row per {what === 'subnets' ? 'subnet' : 'address'}, at most{' '}
            {MAX_ROWS.toLocaleString('en')}. Columns: {columns.join(', ')}; {REQUIRED[what].join(' and ')} required.
            {what === 'subnets' && ' Folders, VLANs, VRFs and locations named are created when missing.'} An exported
            file imports as it is.
          </p>
        </div>
        {problems.length > 0 && (
          <div className="notice error" role="alert">
            <strong>Nothing was sent: correct the CSV first</strong>
            <ul>
              {problems.slice(0, 10).map((problem, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole, never reordered
                <li key={i}>{problem}</li>
              ))}
            </ul>
            {problems.length > 10 && <p>And {problems.length - 10} more.</p>}
          </div>
        )}
        <ErrorNotice error={run.error} />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={run.isPending}>
            Import {what}
          </button>
        </div>
      </form>
      {run.isPending && (
        <p className="muted" aria-live="polite">
          Importing…
        </p>
      )}
      {run.data && <Results {...run.data} />}
    </section>
  );
}

type Outcome = { lines: number[] } & (
  | { what: 'subnets'; answer: Awaited<ReturnType<typeof api.importExport.importSubnets>> }
  | { what: 'addresses'; answer: Awaited<ReturnType<typeof api.importExport.importAddresses>> }
);

const figure = (n: number) => n.toLocaleString('en');

function Results(outcome: Outcome) {
  const { summary } = outcome.answer;
  const rows =
    outcome.what === 'subnets'
      ? outcome.answer.results.map((r) => ({ ...r, value: r.network, link: `/subnets/${r.id}` }))
      : outcome.answer.results.map((r) => ({ ...r, value: r.ip, link: null }));
  return (
    <section aria-labelledby="results-title">
      <h3 id="results-title">Results</h3>
      <p role="status">
        {figure(rows.length)} {rows.length === 1 ? 'row' : 'rows'}: {figure(summary.created)} created,{' '}
        {figure(summary.skipped)} skipped, {figure(summary.errors)} with an error.
      </p>
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Result of each row of the import</caption>
          <thead>
            <tr>
              <th scope="col" className="num">
                Row
              </th>
              <th scope="col" className="num">
                Line
              </th>
              <th scope="col">{outcome.what === 'subnets' ? 'Network' : 'IP address'}</th>
              <th scope="col">Status</th>
              <th scope="col">Reason or id</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.row}>
                <td className="num">{row.row}</td>
                <td className="num">{outcome.lines[row.row - 1]}</td>
                <td>{row.id && row.link ? <Link to={row.link}>{row.value}</Link> : row.value}</td>
                <td className={`import-status-${row.status}`}>{row.status}</td>
                <td>{row.error ?? <code>{row.id}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The exports: plain links, so the browser downloads the file the API names, on the session's cookie. */
function Export() {
  const [folder, setFolder] = useState('');
  const [subnet, setSubnet] = useState('');
  const folders = useQuery({ queryKey: ['folders'], queryFn: () => api.folders.list() });
  const subnets = useQuery({ queryKey: ['subnets', ''], queryFn: () => api.subnets.list() });
  return (
    <section className="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <div className="grid two">
        <div>
          <SelectField
            label="Subnets of"
            value={folder}
            onChange={(e) => setFolder(e.target.value)}
            options={[
              { value: '', label: 'All folders' },
              ...(folders.data ?? []).map((f) => ({ value: f.id, label: `Folder ${f.name}` })),
            ]}
          />
          <a className="button" href={getExportSubnetsUrl(folder ? { folder_id: folder } : undefined)} download>
            Download subnets CSV
          </a>
        </div>
        <div>
          <SelectField
            label="Addresses of"
            value={subnet}
            onChange={(e) => setSubnet(e.target.value)}
            options={[
              { value: '', label: 'All subnets' },
              ...(subnets.data ?? []).map((s) => ({
                value: s.id,
                label: [s.network, s.vrf_name && `VRF ${s.vrf_name}`, s.name].filter(Boolean).join(' · '),
              })),
            ]}
          />
          <a className="button" href={getExportAddressesUrl(subnet ? { subnet_id: subnet } : undefined)} download>
            Download addresses CSV
          </a>
        </div>
      </div>
      <ErrorNotice error={folders.error ?? subnets.error} />
    </section>
  );
}

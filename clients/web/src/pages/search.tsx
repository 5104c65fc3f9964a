/** Search: the subnets and addresses matching the URL's `q`, each linking to the subnet's page. */
import { useQuery } from '@tanstack/react-query';
import { api } from '../api';
import { problemOf } from '../components/errors';
import { TextField } from '../components/form';
import { searchFor, submittedQuery } from '../components/search-box';
import { Loaded, Page } from '../components/ui';
import { Link, useLocation } from '../router';
import './network.css';

type Results = Awaited<ReturnType<typeof api.search.query>>;

/** The most results the API gives of each kind. */
const MAX_RESULTS = 50;

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function SearchPage(_props: Record<string, string>) {
  const q = useLocation().searchParams.get('q') ?? '';
  const asked = q.trim() !== '';
  const results = useQuery({ queryKey: ['search', q], queryFn: () => api.search.query({ q }), enabled: asked });
  const error = results.error ? problemOf(results.error).fields.q : undefined;
  return (
    <Page title="Search">
      <form className="form-row search-form" onSubmit={(e) => searchFor(submittedQuery(e))}>
        <TextField
          key={q}
          label="Search for"
          name="q"
          type="search"
          defaultValue={q}
          hint="An IP address, a CIDR or the start of one, a hostname, a name or words of a description"
          error={error}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      {asked && !error && <Loaded query={results}>{(data) => <Found q={q} results={data} />}</Loaded>}
    </Page>
  );
}

function Found({ q, results: { subnets, addresses } }: { q: string; results: Results }) {
  return (
    <>
      <p role="status">
        {subnets.length + addresses.length === 0
          ? `Nothing matches “${q}”.`
          : `${counted(subnets.length, 'subnet', 'subnets')} and ${counted(addresses.length, 'address', 'addresses')} match “${q}”.`}
        {(subnets.length === MAX_RESULTS || addresses.length === MAX_RESULTS) &&
          ` The first ${MAX_RESULTS} of each kind are shown: type more to narrow the search.`}
      </p>
      {subnets.length > 0 && (
        <section className="found" aria-labelledby="found-subnets">
          <h2 id="found-subnets">Subnets</h2>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Network</th>
                  <th scope="col">Name</th>
                </tr>
              </thead>
              <tbody>
                {subnets.map((subnet) => (
                  <tr key={subnet.id}>
                    <td>
                      <Link to={`/subnets/${subnet.id}`}>{subnet.network}</Link>
                    </td>
                    <td>{subnet.name}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {addresses.length > 0 && (
        <section className="found" aria-labelledby="found-addresses">
          <h2 id="found-addresses">Addresses</h2>
          <p className="hint">Each address links to the page of its subnet.</p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">IP address</th>
                  <th scope="col">Hostname</th>
                </tr>
              </thead>
              <tbody>
                {addresses.map((address) => (
                  <tr key={address.id}>
                    <td>
                      <Link to={`/subnets/${address.subnet_id}`}>{address.ip}</Link>
                    </td>
                    <td>{address.hostname}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}

// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function LocationsPage(_props: Record<string, string>) {
  return <Page title="Locations">{null}</Page>;
}

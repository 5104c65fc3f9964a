// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function SearchPage(_props: Record<string, string>) {
  return <Page title="Search">{null}</Page>;
}

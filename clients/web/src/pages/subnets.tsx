// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function SubnetsPage(_props: Record<string, string>) {
  return <Page title="Subnets">{null}</Page>;
}

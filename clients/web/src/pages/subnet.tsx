// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function SubnetPage(_props: Record<string, string>) {
  return <Page title="Subnet">{null}</Page>;
}

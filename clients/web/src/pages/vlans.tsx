// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function VlansPage(_props: Record<string, string>) {
  return <Page title="VLANs">{null}</Page>;
}

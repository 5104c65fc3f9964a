// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function VrfsPage(_props: Record<string, string>) {
  return <Page title="VRFs">{null}</Page>;
}

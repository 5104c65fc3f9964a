// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function ApiKeysPage(_props: Record<string, string>) {
  return <Page title="API keys">{null}</Page>;
}

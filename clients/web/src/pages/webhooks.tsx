// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function WebhooksPage(_props: Record<string, string>) {
  return <Page title="Webhooks">{null}</Page>;
}

// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function WebhookPage(_props: Record<string, string>) {
  return <Page title="Webhook">{null}</Page>;
}

// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function AccountPage(_props: Record<string, string>) {
  return <Page title="Your account">{null}</Page>;
}

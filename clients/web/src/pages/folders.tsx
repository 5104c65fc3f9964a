// STUB: replaced by the page's own implementation.
import { Page } from '../components/ui';

export function FoldersPage(_props: Record<string, string>) {
  return <Page title="Folders">{null}</Page>;
}

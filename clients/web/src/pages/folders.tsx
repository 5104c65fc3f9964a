/** Folders: containers for subnets. Deleting one keeps its subnets, unfoldered. */
import { api } from '../api';
import { ResourceList } from '../components/resource-list';

export function FoldersPage(_props: Record<string, string>) {
  return (
    <ResourceList
      plural="folders"
      noun="folder"
      queryKey="folders"
      list={api.folders.list}
      create={api.folders.create}
      update={api.folders.update}
      remove={api.folders.delete}
      fields={[
        { name: 'name', label: 'Name' },
        { name: 'description', label: 'Description' },
        {
          name: 'sort_order',
          label: 'Sort order',
          type: 'number',
          hint: 'Folders are listed by this number, then name.',
        },
      ]}
      body={(value) => ({
        name: value('name'),
        description: value('description'),
        sort_order: value('sort_order') === '' ? undefined : Number(value('sort_order')),
      })}
      name={(folder) => `folder ${folder.name}`}
      columns={[
        { label: 'Description', cell: (folder) => folder.description },
        { label: 'Sort order', cell: (folder) => folder.sort_order, num: true },
      ]}
      deletion="Its subnets are kept and become unfoldered."
    />
  );
}

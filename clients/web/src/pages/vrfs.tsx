/** VRFs: separate address spaces. One that subnets use cannot be deleted (the API says which). */
import { api } from '../api';
import { ResourceList } from '../components/resource-list';

export function VrfsPage(_props: Record<string, string>) {
  return (
    <ResourceList
      plural="VRFs"
      noun="VRF"
      queryKey="vrfs"
      list={api.vrfs.list}
      create={api.vrfs.create}
      update={api.vrfs.update}
      remove={api.vrfs.delete}
      fields={[
        { name: 'name', label: 'Name' },
        { name: 'rd', label: 'Route distinguisher', hint: 'Such as 65000:100' },
        { name: 'description', label: 'Description' },
      ]}
      body={(value) => ({ name: value('name'), rd: value('rd'), description: value('description') })}
      name={(vrf) => `VRF ${vrf.name}`}
      columns={[
        { label: 'Route distinguisher', cell: (vrf) => vrf.rd },
        { label: 'Description', cell: (vrf) => vrf.description },
        { label: 'Subnets', cell: (vrf) => vrf.subnet_count, num: true },
      ]}
      deletion="A VRF that subnets still use cannot be deleted: move or delete its subnets first."
    />
  );
}

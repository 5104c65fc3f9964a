/** VLANs by number, each at a location or none. Deleting one clears it from its subnets. */
import { useQuery } from '@tanstack/react-query';
import { api } from '../api';
import { ResourceList } from '../components/resource-list';

export function VlansPage(_props: Record<string, string>) {
  const locations = useQuery({ queryKey: ['locations'], queryFn: () => api.locations.list() });
  const where = new Map(locations.data?.map((location) => [location.id, location.name]));
  return (
    <ResourceList
      plural="VLANs"
      noun="VLAN"
      queryKey="vlans"
      list={api.vlans.list}
      create={api.vlans.create}
      update={api.vlans.update}
      remove={api.vlans.delete}
      fields={[
        { name: 'vlan_number', label: 'Number', type: 'number', hint: '1 to 4094, once in the organisation' },
        { name: 'name', label: 'Name' },
        { name: 'description', label: 'Description' },
        {
          name: 'location_id',
          label: 'Location',
          options: [{ value: '', label: 'None' }, ...[...where].map(([value, label]) => ({ value, label }))],
        },
      ]}
      body={(value) => ({
        vlan_number: Number(value('vlan_number')),
        name: value('name'),
        description: value('description'),
        location_id: value('location_id') || null,
      })}
      name={(vlan) => `VLAN ${vlan.vlan_number}`}
      columns={[
        { label: 'Name', cell: (vlan) => vlan.name },
        { label: 'Location', cell: (vlan) => (vlan.location_id && where.get(vlan.location_id)) || '' },
        { label: 'Description', cell: (vlan) => vlan.description },
        { label: 'Subnets', cell: (vlan) => vlan.subnet_count, num: true },
      ]}
      deletion="Its subnets are kept, without a VLAN."
    />
  );
}

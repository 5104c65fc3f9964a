/** Locations: sites of subnets and VLANs. Deleting one clears it from them. */
import { api } from '../api';
import { ResourceList } from '../components/resource-list';

export function LocationsPage(_props: Record<string, string>) {
  return (
    <ResourceList
      plural="locations"
      noun="location"
      queryKey="locations"
      list={api.locations.list}
      create={api.locations.create}
      update={api.locations.update}
      remove={api.locations.delete}
      fields={[
        { name: 'name', label: 'Name' },
        { name: 'address', label: 'Address', hint: 'Postal or site address' },
      ]}
      body={(value) => ({ name: value('name'), address: value('address') })}
      name={(location) => `location ${location.name}`}
      columns={[
        { label: 'Address', cell: (location) => location.address },
        { label: 'Subnets', cell: (location) => location.subnet_count, num: true },
        { label: 'VLANs', cell: (location) => location.vlan_count, num: true },
      ]}
      deletion="Its subnets and VLANs are kept, without a location."
    />
  );
}

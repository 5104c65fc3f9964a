/**
 * What the webhook pages share: the event types a subscription may choose (every type the API sends, from
 * the SDK generated from the contract; `ping` is only the test's), how a choice is shown, its control, and
 * the fields of an endpoint that both its creation and its settings edit.
 */
import { useId } from 'react';
import { WebhookEventType } from '../../../typescript/src/index';
import { CheckboxField, TextField } from '../components/form';

export type EventType = Exclude<WebhookEventType, 'ping'>;

const EVENT_TYPES = Object.values(WebhookEventType).filter((type): type is EventType => type !== 'ping');

/** What each resource of the event types is called in the console's navigation. */
const RESOURCE_NAMES: Record<string, string> = {
  folder: 'Folders',
  subnet: 'Subnets',
  address: 'Addresses',
  vlan: 'VLANs',
  vrf: 'VRFs',
  location: 'Locations',
};

/** The event types by resource: `folder` → folder.created, folder.updated, folder.deleted. */
const resourceOf = (type: string) => {
  const [resource = type] = type.split('.');
  return resource;
};
const GROUPS = [...new Set(EVENT_TYPES.map(resourceOf))].map((resource) => ({
  name: RESOURCE_NAMES[resource] ?? resource,
  types: EVENT_TYPES.filter((type) => type.startsWith(`${resource}.`)),
}));

/** The event types of a subscription as a list, or "all" (the API's empty list). */
export function EventTypesList({ types }: { types: readonly string[] }) {
  if (types.length === 0) return <>all</>;
  return (
    <ul className="event-list">
      {types.map((type) => (
        <li key={type}>
          <code>{type}</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * The choice of event types: every event (the API's empty list), or those ticked. `value` null stands for
 * "only these" with none ticked yet, which the form refuses (the API would take it as every event).
 */
function EventTypesField({
  value,
  onChange,
  error,
}: {
  value: EventType[] | null;
  onChange: (value: EventType[] | null) => void;
  error?: string;
}) {
  const id = useId();
  const every = value !== null && value.length === 0;
  const chosen = value ?? [];
  const toggle = (type: EventType, on: boolean) => {
    const next = on ? [...chosen, type] : chosen.filter((t) => t !== type);
    onChange(next.length === 0 ? null : EVENT_TYPES.filter((t) => next.includes(t)));
  };
  return (
    <fieldset className="choices" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>Events to send</legend>
      <div className="field checkbox">
        <input id={`${id}-all`} type="radio" name={`${id}-mode`} checked={every} onChange={() => onChange([])} />
        <label htmlFor={`${id}-all`}>Every event, including types added later</label>
      </div>
      <div className="field checkbox">
        <input id={`${id}-some`} type="radio" name={`${id}-mode`} checked={!every} onChange={() => onChange(null)} />
        <label htmlFor={`${id}-some`}>Only the events chosen</label>
      </div>
      {!every && (
        <div className="event-groups">
          {GROUPS.map((group) => (
            <fieldset key={group.name}>
              <legend>{group.name}</legend>
              {group.types.map((type) => (
                <CheckboxField
                  key={type}
                  label={type}
                  checked={chosen.includes(type)}
                  onChange={(event) => toggle(type, event.target.checked)}
                />
              ))}
            </fieldset>
          ))}
        </div>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** The message of a choice the form refuses before asking the API, or undefined. */
const eventTypesProblem = (value: EventType[] | null) =>
  value === null ? 'Choose at least one event type, or every event' : undefined;

/** An endpoint as its forms edit it (`event_types` as EventTypesField's value). */
export interface EndpointValues {
  url: string;
  description: string;
  event_types: EventType[] | null;
}

/**
 * The URL, description and event types of an endpoint, with the API's messages (`errors`, by field) and,
 * once the form was `tried`, its own about the event types; `hints` for someone adding one.
 */
export function EndpointFields({
  values,
  onChange,
  errors,
  tried,
  hints = false,
}: {
  values: EndpointValues;
  onChange: (values: EndpointValues) => void;
  errors: Record<string, string>;
  tried: boolean;
  hints?: boolean;
}) {
  const set = (change: Partial<EndpointValues>) => onChange({ ...values, ...change });
  return (
    <>
      <TextField
        label="Endpoint URL"
        type="url"
        hint={hints ? 'https://…; plain http only to addresses the server’s operator allows' : undefined}
        value={values.url}
        onChange={(event) => set({ url: event.target.value })}
        maxLength={2048}
        required
        error={errors.url}
      />
      <TextField
        label="Description"
        hint={hints ? 'Optional, e.g. Sync to CMDB' : undefined}
        value={values.description}
        onChange={(event) => set({ description: event.target.value })}
        maxLength={1000}
        error={errors.description}
      />
      <EventTypesField
        value={values.event_types}
        onChange={(event_types) => set({ event_types })}
        error={(tried ? eventTypesProblem(values.event_types) : undefined) ?? errors.event_types}
      />
    </>
  );
}

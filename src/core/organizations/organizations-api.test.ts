import { afterEach, describe, expect, it } from 'vitest';
import { OrganizationInput } from '@shared/schemas/organization';
import type { Twin } from '@testing/test-support';
import { FakeClock, twinWithClient } from '@testing/test-support';
import { createOrganization, listOrganizations } from './organizations-api';
import { ServiceClient } from '../service-api/service-client';

let twin: Twin | undefined;
afterEach(async () => {
  await twin?.close();
  twin = undefined;
});

/** A client whose fetch answers from a function, to meet record shapes our twin does not send. */
function clientAnswering(answer: () => Response) {
  const fetchImpl = async (url: string) => (url.endsWith('/connect/token') ? new Response(JSON.stringify({ access_token: 't' }), { status: 200 }) : answer());
  return new ServiceClient(
    {
      baseUrl: 'https://billing.example.com',
      clientId: 'c',
      username: 'u',
      resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      sellerId: '',
      readSecrets: async () => ({ apiSecret: 's', password: 'p' }),
    },
    { fetch: fetchImpl, clock: new FakeClock() },
  );
}

describe('organizations', () => {
  it('lists the twin organizations with their groups and customer numbers', async () => {
    const setup = await twinWithClient({ organizations: 12 });
    twin = setup.twin;
    const organizations = await listOrganizations(setup.client);
    expect(organizations).toHaveLength(12);
    expect(organizations[0]).toMatchObject({ orgId: twin.organizations[0]?.orgId, customerNumber: 'C-10001', organizationGroups: expect.any(Array) });
  });

  it('accepts a list bare or in a paging envelope, and an id under orgId or id', async () => {
    const records = [
      { id: 'a1', name: 'Alpha' },
      { orgId: 'b2', name: 'Beta', address: { countryCode: 'NO' } },
    ];
    for (const body of [records, { data: records }, { items: records }, { value: records }]) {
      const list = await listOrganizations(clientAnswering(() => new Response(JSON.stringify(body))));
      expect(list).toEqual([
        { orgId: 'a1', name: 'Alpha' },
        { orgId: 'b2', name: 'Beta', countryCode: 'NO' },
      ]);
    }
  });

  it('refuses a record without any id, naming where', async () => {
    await expect(listOrganizations(clientAnswering(() => new Response(JSON.stringify([{ name: 'No id' }]))))).rejects.toMatchObject({
      code: 'bad-response',
      message: expect.stringContaining('at 0'),
    });
  });

  it('takes a create answered with an empty body and a Location header', async () => {
    const client = clientAnswering(
      () => new Response(null, { status: 201, headers: { Location: 'https://billing.example.com/api/resellers/x/Organizations/new-id' } }),
    );
    const created = await createOrganization(
      client,
      OrganizationInput.parse({ name: 'Empty Body AB', contact: { email: 'it@empty.example' }, address: { countryCode: 'SE' } }),
    );
    expect(created).toMatchObject({ orgId: 'new-id', name: 'Empty Body AB', countryCode: 'SE', contactEmail: 'it@empty.example' });
  });

  it('takes any 2xx answer to a create as created: a bare id, an object naming only the id, text it cannot read', async () => {
    const input = OrganizationInput.parse({ name: 'Odd Answer AB', contact: { email: 'it@odd.example' }, address: { countryCode: 'SE' } });
    const guid = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    const answers: [() => Response, string][] = [
      [() => new Response(guid, { status: 201, headers: { 'Content-Type': 'text/plain' } }), guid],
      [() => new Response(JSON.stringify(guid), { status: 201 }), guid],
      [() => new Response(JSON.stringify({ orgId: guid }), { status: 201 }), guid],
      [() => new Response(JSON.stringify({ id: 42 }), { status: 200 }), '42'],
      [() => new Response('<html>Created</html>', { status: 201, headers: { Location: `/api/resellers/x/Organizations/${guid}` } }), guid],
      [() => new Response('Created', { status: 201 }), ''],
    ];
    for (const [answer, orgId] of answers) {
      const created = await createOrganization(clientAnswering(answer), input);
      expect(created).toMatchObject({ orgId, name: 'Odd Answer AB', countryCode: 'SE', contactEmail: 'it@odd.example' });
    }
  });

  it('maps the service field errors onto the form fields', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const error = await createOrganization(
      setup.client,
      OrganizationInput.parse({ name: 'Dup AB', customerNumber: 'C-10001', contact: { email: 'it@dup.example' }, address: { countryCode: 'SE' } }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'validation', fields: { customerNumber: expect.stringContaining('already used') } });
    expect((error as Error).message).toContain('Customer number C-10001 is already used');
  });
});

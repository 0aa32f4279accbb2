import { readFile } from 'node:fs/promises';
import { fieldErrorsFromZod } from '@shared/errors';
import { OrganizationInput } from '@shared/schemas/organization';
import { UsageError } from './context';
import { errorMessage } from '@shared/error-message';
import { counted } from '@shared/counted';

/**
 * The organization in an `orgs create --file` file. Two shapes are read: the service's own (spec §2.1: `contact`
 * and `address` objects), and the flat one `orgs list --json` prints (`contactName`, `contactEmail`, `city`,
 * `countryCode`…), so a listed organization can be copied, edited and created. Every problem is reported at
 * once, one per line, naming its field.
 */
export async function readOrganizationFile(path: string): Promise<OrganizationInput> {
  let json: unknown;
  try {
    json = JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`${path} could not be read as JSON (${errorMessage(error)}).`);
  }
  if (Array.isArray(json)) {
    if (json.length !== 1) throw new UsageError(`${path} holds a list of ${json.length} organizations; orgs create takes one (an object, or a list of one).`);
    json = json[0];
  }
  if (!json || typeof json !== 'object') throw new UsageError(`${path} must hold one organization as a JSON object (see examples/org.json).`);
  const record = json as Record<string, unknown>;
  const problems: string[] = [];
  if (record.orgId !== undefined || record.id !== undefined) {
    problems.push(`${record.orgId !== undefined ? 'orgId' : 'id'}: this is an existing organization's id — remove it to create a new organization`);
  }
  const parsed = OrganizationInput.safeParse(isFlat(record) ? fromListed(record) : record);
  if (!parsed.success) for (const [field, message] of Object.entries(fieldErrorsFromZod(parsed.error))) problems.push(`${field}: ${message}`);
  if (problems.length > 0 || !parsed.success) {
    throw new UsageError(
      `The organization in ${path} is not valid (${counted(problems.length, 'problem')}):\n${problems.map((problem) => `  ${problem}`).join('\n')}`,
    );
  }
  return parsed.data;
}

/** The flat shape of `orgs list --json`: no nested contact or address, but their fields on the record itself. */
function isFlat(record: Record<string, unknown>): boolean {
  return record.contact === undefined && record.address === undefined && ['contactEmail', 'contactName', 'countryCode', 'city'].some((key) => key in record);
}

function fromListed(record: Record<string, unknown>): Record<string, unknown> {
  const { orgId: _orgId, id: _id, organizationGroups: _groups, contactName, contactEmail, city, countryCode, ...rest } = record;
  return { ...rest, contact: { name: contactName, email: contactEmail }, address: { city, countryCode } };
}

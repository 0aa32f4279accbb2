/** The twin's made-up service catalogue: vendor services sold in the customer's currency, custom ones bought in USD. */

export interface ProductTemplate {
  name: string;
  itemCode: string;
  /** Reseller price per unit in the service currency, before the per-organization variation. */
  unitCost: number;
  /** Quantities are seats, or metered amounts with decimals. */
  metered?: boolean;
}

export interface ServiceTemplate {
  name: string;
  kind: 'vendor' | 'custom';
  /** Billing day in the month (vendor new-commerce data lands on day 7). */
  billingDay: number;
  products: ProductTemplate[];
  /** Metered subscriptions accept consumption; some have add-ons. */
  metered?: boolean;
}

export const CURRENCIES = ['EUR', 'SEK', 'NOK', 'DKK', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Rough value of one unit of each currency in EUR, so prices look plausible in every currency. */
export const PER_EUR: Record<Currency, number> = { EUR: 1, SEK: 11.4, NOK: 11.7, DKK: 7.46, USD: 1.08 };

export const SERVICES: ServiceTemplate[] = [
  {
    name: 'Microsoft 365 (new commerce)',
    kind: 'vendor',
    billingDay: 7,
    products: [
      { name: 'Microsoft 365 Business Standard', itemCode: 'CFQ7TTC0LDPB:0001', unitCost: 11.7 },
      { name: 'Microsoft 365 Business Premium', itemCode: 'CFQ7TTC0LCHC:0002', unitCost: 20.6 },
      { name: 'Microsoft 365 E3', itemCode: 'CFQ7TTC0LFLX:0001', unitCost: 33.75 },
      { name: 'Exchange Online (Plan 1)', itemCode: 'CFQ7TTC0LH16:0001', unitCost: 3.75 },
      { name: 'Teams Phone Standard', itemCode: 'CFQ7TTC0LH2H:0001', unitCost: 7.5 },
    ],
  },
  {
    name: 'Azure plan',
    kind: 'vendor',
    billingDay: 7,
    metered: true,
    products: [
      { name: 'Virtual Machines Dv5 Series', itemCode: 'DZH318Z0BQ4L:0001', unitCost: 0.1987, metered: true },
      { name: 'Storage - Hot LRS', itemCode: 'DZH318Z0BNVX:002H', unitCost: 0.0184, metered: true },
      { name: 'Bandwidth - Data Transfer Out', itemCode: 'DZH318Z0BNZJ:0017', unitCost: 0.0783, metered: true },
    ],
  },
  {
    name: 'Dynamics 365',
    kind: 'vendor',
    billingDay: 7,
    products: [
      { name: 'Dynamics 365 Sales Professional', itemCode: 'CFQ7TTC0LH0Q:0001', unitCost: 60.6 },
      { name: 'Dynamics 365 Business Central Essentials', itemCode: 'CFQ7TTC0LH0T:0001', unitCost: 65.6 },
    ],
  },
  {
    name: 'Acronis Cyber Protect Cloud',
    kind: 'vendor',
    billingDay: 7,
    metered: true,
    products: [
      { name: 'Backup storage (GB)', itemCode: 'ACR-BCK-GB', unitCost: 0.0312, metered: true },
      { name: 'Workstation protection', itemCode: 'ACR-WKS', unitCost: 1.95 },
    ],
  },
  {
    name: 'Managed Backup (custom)',
    kind: 'custom',
    billingDay: 1,
    products: [
      { name: 'Managed backup per server', itemCode: 'MB-SRV', unitCost: 18.5 },
      { name: 'Offsite copy (TB)', itemCode: 'MB-OFF-TB', unitCost: 9.25, metered: true },
    ],
  },
  {
    name: 'Service Desk Agreement (custom)',
    kind: 'custom',
    billingDay: 1,
    products: [
      { name: 'Service desk per user', itemCode: 'SD-USER', unitCost: 6.4 },
      { name: 'On-site hours', itemCode: 'SD-HOURS', unitCost: 72.0 },
    ],
  },
];

export const ADDON_NAMES = ['Extra storage', 'Priority support', 'Advanced threat protection', 'Archive'];

/** Words of the twin's organization names; a few with Å, Ä, Ö and Ø, whose place in the order depends on the language. */
export const ORGANIZATION_WORDS = {
  first: [
    'Nordic',
    'Baltic',
    'Fjord',
    'Åkerberg',
    'Granite',
    'Harbor',
    'Juniper',
    'Kestrel',
    'Lumen',
    'Meridian',
    'Northwind',
    'Øresund',
    'Pine',
    'Quarry',
    'Riverside',
    'Summit',
    'Tundra',
    'Älvsjö',
    'Willow',
    'Zephyr',
  ],
  second: [
    'Logistics',
    'Dental',
    'Architects',
    'Bakery',
    'Consulting',
    'Engineering',
    'Foods',
    'Health',
    'Legal',
    'Marine',
    'Media',
    'Motors',
    'Retail',
    'Robotics',
    'Shipping',
    'Studios',
    'Systems',
    'Textiles',
    'Timber',
    'Travel',
  ],
  suffix: ['AB', 'AS', 'ApS', 'Oy', 'GmbH', 'BV', 'Ltd', 'Inc'],
};

export const COST_CENTRES = ['CC-100 Nordics', 'CC-200 Enterprise', 'CC-300 Public sector', 'CC-400 SMB'];
export const ACCOUNT_MANAGERS = ['AM Anna Berg', 'AM Jonas Lund', 'AM Sofie Dahl', 'AM Mikko Virtanen', 'AM Emma Holm'];
export const CITIES: Record<Currency, { city: string; country: string }[]> = {
  EUR: [
    { city: 'Helsinki', country: 'FI' },
    { city: 'Amsterdam', country: 'NL' },
    { city: 'Berlin', country: 'DE' },
  ],
  SEK: [
    { city: 'Stockholm', country: 'SE' },
    { city: 'Göteborg', country: 'SE' },
  ],
  NOK: [
    { city: 'Oslo', country: 'NO' },
    { city: 'Bergen', country: 'NO' },
  ],
  DKK: [
    { city: 'København', country: 'DK' },
    { city: 'Aarhus', country: 'DK' },
  ],
  USD: [
    { city: 'Boston', country: 'US' },
    { city: 'Seattle', country: 'US' },
  ],
};

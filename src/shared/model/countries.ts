/**
 * The country codes Closebook accepts: ISO 3166-1 alpha-2 as assigned (249), and two that VAT and e-invoices use
 * beside them — XI (Northern Ireland, in EN 16931's country list) and XK (Kosovo, by convention).
 */
const ASSIGNED =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT ' +
  'JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY ' +
  'MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM ' +
  'PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ ' +
  'UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';
export const COUNTRY_CODES: ReadonlySet<string> = new Set([...ASSIGNED.split(' '), 'XI', 'XK']);

/** Codes people write for a country whose ISO code is another: the VAT prefix or the common abbreviation. */
const MEANT: Readonly<Record<string, string>> = { UK: 'GB (the United Kingdom)', EL: 'GR (Greece; EL is its VAT prefix)' };

/** What is wrong with a two-letter country code (upper-case), in words that say what to write; null when it is one. */
export function countryCodeProblem(code: string): string | null {
  if (COUNTRY_CODES.has(code)) return null;
  const meant = MEANT[code];
  return meant ? `${code} is not an ISO 3166 country code: write ${meant}` : `${code} is not an ISO 3166 country code (SE, GB, DE …)`;
}

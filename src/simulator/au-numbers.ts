/** Australian company numbers with valid check digits, so a demo firm looks real to a checker. */

/** ACN: 8 digits plus a check digit (weights 8..1, complement of the sum mod 10). */
export function acn(eightDigits: string): string {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(eightDigits[i]) * (8 - i);
  return `${eightDigits}${(10 - (sum % 10)) % 10}`;
}

const ABN_WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];

export function isValidAbn(abn: string): boolean {
  if (!/^\d{11}$/.test(abn)) return false;
  const sum = ABN_WEIGHTS.reduce((s, w, i) => s + w * (Number(abn[i]) - (i === 0 ? 1 : 0)), 0);
  return sum % 89 === 0;
}

/** The ABN of a company: two check digits in front of its ACN (the ATO's own scheme). */
export function abnFor(nineDigits: string): string {
  for (let prefix = 10; prefix < 100; prefix++) {
    const abn = `${prefix}${nineDigits}`;
    if (isValidAbn(abn)) return abn;
  }
  throw new Error(`No ABN prefix for ${nineDigits}`);
}

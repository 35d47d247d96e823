/** A rejected input: `field` is a dotted path such as `providers[0].baseUrl`. */
export class ValidationError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'ValidationError';
  }
}

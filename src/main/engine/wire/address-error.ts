/**
 * The gateway could not move to another address (taken port, a host not of this machine, a
 * public host without gateway keys): the admin API answers with this status, code and field.
 */
export class AddressError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: 'host' | 'port',
  ) {
    super(message);
    this.name = 'AddressError';
  }
}

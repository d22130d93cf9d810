/** Why a request ends without its answer. */

/** The client cancelled the request while it ran. */
export class Cancelled extends Error {}

/** The request cannot be done; the message tells the user why (an invalid
 * new name, a file the formatter cannot format). */
export class RequestFailed extends Error {}

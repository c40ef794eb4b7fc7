/**
 * Where a phone is: the adb server it is attached to and its serial on that server. Two lab hosts
 * can each have a phone called `emulator-5554`, so the serial alone names nothing once a run uses
 * several adb servers: leases, shared state and reports all use the address.
 */

/** An adb server (`adb -a -P <port> nodaemon server` on a lab host, or the local one). */
export interface AdbServerAddress {
  readonly host: string
  readonly port: number
}

export interface PhoneAddress extends AdbServerAddress {
  readonly serial: string
}

/** `host:port` of an adb server (IPv6 in brackets). */
export function adbServerName(server: AdbServerAddress): string {
  return `${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}`
}

/** A phone's identity across servers: `127.0.0.2:5037/emulator-5554`. */
export function phoneKey(phone: PhoneAddress): string {
  return `${adbServerName(phone)}/${phone.serial}`
}

/**
 * How messages name a phone: its serial when the run has one adb server, else the serial and the
 * server (`emulator-5554 on 10.0.0.7:5037`), so a failure says which lab host to look at.
 */
export function phoneName(phone: PhoneAddress, oneServer: boolean): string {
  return oneServer ? phone.serial : `${phone.serial} on ${adbServerName(phone)}`
}

/** Whether the phones all hang off one adb server. */
export function oneAdbServer(phones: readonly PhoneAddress[]): boolean {
  return new Set(phones.map(adbServerName)).size <= 1
}

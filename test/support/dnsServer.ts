import dns2 from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for FOLIO_DNS_SERVERS. */
  address: string;
  setCname(hostname: string, target: string): void;
  /** Replaces the name's TXT records; each record is one string or several character strings. */
  setTxt(name: string, records: (string | string[])[]): void;
  /** Removes the name's CNAME and TXT records. */
  remove(name: string): void;
  close(): Promise<void>;
}

/** A real DNS server on loopback (dns2, UDP) answering CNAME and TXT queries from maps. */
export async function startDnsServer(): Promise<TestDnsServer> {
  const cnames = new Map<string, string>();
  const txts = new Map<string, (string | string[])[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      const name = question?.name.toLowerCase() ?? '';
      const target = cnames.get(name);
      if (question && target && question.type === Packet.TYPE.CNAME) {
        response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain: target } as never);
      }
      if (question && question.type === Packet.TYPE.TXT) {
        // dns2 writes `data` as one character string, or an array as several in one record.
        for (const data of txts.get(name) ?? []) {
          response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as never);
        }
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const udp = addresses.udp as { port: number };
  return {
    address: `127.0.0.1:${udp.port}`,
    setCname: (hostname, target) => cnames.set(hostname.toLowerCase(), target),
    setTxt: (name, records) => txts.set(name.toLowerCase(), records),
    remove: (name) => {
      cnames.delete(name.toLowerCase());
      txts.delete(name.toLowerCase());
    },
    close: async () => {
      await server.close();
    },
  };
}

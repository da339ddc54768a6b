import dns2 from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for FOLIO_DNS_SERVERS. */
  address: string;
  setCname(hostname: string, target: string): void;
  remove(hostname: string): void;
  close(): Promise<void>;
}

/** A real DNS server on loopback (dns2, UDP) answering CNAME queries from a map. */
export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      const target = question ? records.get(question.name.toLowerCase()) : undefined;
      if (question && target && question.type === Packet.TYPE.CNAME) {
        response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain: target } as never);
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const udp = addresses.udp as { port: number };
  return {
    address: `127.0.0.1:${udp.port}`,
    setCname: (hostname, target) => records.set(hostname.toLowerCase(), target),
    remove: (hostname) => records.delete(hostname.toLowerCase()),
    close: async () => {
      await server.close();
    },
  };
}

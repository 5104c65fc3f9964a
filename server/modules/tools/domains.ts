/**
 * The organisational (registered) domain of a name, without I/O: where DMARC falls back to a missing
 * record (RFC 7489 3.2) and what a whois registry is asked about.
 */

/**
 * Public suffixes of more than one label, for the organisational domain (RFC 7489 3.2: the public suffix
 * plus one label). An approximation of the Public Suffix List: without a match, the suffix is the last
 * label; this list covers the second-level registries in common use (UK, Australia, Japan, Brazil …). A
 * name under an unlisted multi-label suffix gets a one-label-too-short organisational domain, whose
 * `_dmarc` record (if any) is the registry's, which in practice publishes none.
 */
const MULTI_LABEL_SUFFIXES = new Set(
  [
    'co.uk org.uk me.uk ltd.uk plc.uk net.uk sch.uk ac.uk gov.uk nhs.uk police.uk',
    'com.au net.au org.au edu.au gov.au asn.au id.au',
    'co.nz net.nz org.nz govt.nz ac.nz school.nz geek.nz',
    'co.jp ne.jp or.jp ac.jp go.jp ad.jp ed.jp gr.jp lg.jp',
    'co.kr or.kr ne.kr ac.kr go.kr',
    'com.br net.br org.br gov.br edu.br',
    'com.cn net.cn org.cn gov.cn edu.cn ac.cn',
    'com.hk net.hk org.hk edu.hk gov.hk com.tw net.tw org.tw edu.tw gov.tw',
    'com.sg net.sg org.sg edu.sg gov.sg com.my net.my org.my edu.my gov.my',
    'co.id or.id ac.id go.id co.th in.th ac.th go.th com.ph com.vn com.pk',
    'co.in net.in org.in firm.in gen.in ind.in ac.in edu.in gov.in',
    'co.za org.za net.za gov.za ac.za web.za co.il org.il net.il ac.il gov.il',
    'com.mx org.mx gob.mx edu.mx com.ar net.ar org.ar gob.ar com.co net.co org.co',
    'com.tr net.tr org.tr gen.tr edu.tr gov.tr com.ua net.ua org.ua',
    'com.eg com.sa com.ng co.ke or.ke com.pe com.uy com.ve',
  ].flatMap((line) => line.split(' ')),
);

/** The organisational domain of `domain` (lower-case, without a trailing dot), by the approximation above. */
export function organisationalDomain(domain: string): string {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  const keep = labels.length >= 3 && MULTI_LABEL_SUFFIXES.has(labels.slice(-2).join('.')) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

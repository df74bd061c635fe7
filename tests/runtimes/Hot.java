// A Java workload with a known hot leaf and caller chain, for
// tests/runtimes (chain_share.py): JavaMain -> ... -> Hot.main ->
// Hot.hotMain -> Hot.hotOuter -> Hot.hotMiddle -> Hot.hotLeaf. hotLeaf
// takes nearly all the CPU.
//   usage: javac -d DIR Hot.java && java -cp DIR
//          -XX:CompileCommand=dontinline,Hot::hot* Hot [SECONDS (2.5)]
//
// C2 would inline hotLeaf into hotMiddle (and so on); the dontinline
// compile command keeps each one a frame of its own. Every hot* method is
// called many times so each is compiled whole; main, called once, runs
// interpreted and then on-stack replaced, so it is not in the chain.
public class Hot {
    static long hotLeaf(long seed) {
        long a = seed, b = seed * 7, c = seed ^ 0x5bd1e995L, d = 1;
        for (int i = 0; i < 2000; i++) {
            a += b * 0x9e3779b97f4a7c15L; b ^= a >>> 15;
            c += a * 0x85ebca6bL; d ^= c >>> 13;
            a += d * 0xc2b2ae35L; b += a << 3;
            c ^= b >>> 7; d += c * 0x27d4eb2fL;
        }
        return a ^ b ^ c ^ d;
    }

    static long hotMiddle(long seed) {
        long acc = 0;
        for (int i = 0; i < 4; i++) {
            acc += hotLeaf(seed + i);
        }
        return acc;
    }

    static long hotOuter(long seed) {
        long acc = 0;
        for (int i = 0; i < 4; i++) {
            acc ^= hotMiddle(seed + i);
        }
        return acc;
    }

    static long hotMain(long seed) {
        return hotOuter(seed) ^ hotOuter(seed + 1);
    }

    public static void main(String[] args) {
        // The pid names the JVM's /tmp/perf-PID.map (and jcmd's target).
        System.out.println("Hot.java: pid " + ProcessHandle.current().pid());
        System.out.flush();
        double secs = args.length > 0 ? Double.parseDouble(args[0]) : 2.5;
        long end = System.nanoTime() + (long) (secs * 1e9);
        long acc = 0, n = 0;
        while (System.nanoTime() < end) {
            acc += hotMain(n++);
        }
        System.out.println("Hot.java: " + n + " rounds, checksum " + acc);
    }
}

# A Ruby workload for trec's Ruby tests: main -> Worker#run -> a block
# called from Array#sort_by (a C method) -> a 24-deep recursion -> a leaf
# loop. Usage: ruby busy.rb SECONDS
class Worker
  def initialize(depth)
    @depth = depth
  end

  def run(deadline)
    [2, 1].sort_by do |k|
      recurse(@depth, deadline)
      k
    end
  end

  def recurse(n, deadline)
    return leaf(deadline) if n.zero?
    recurse(n - 1, deadline)
  end

  def leaf(deadline)
    i = 0
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      j = 0
      while j < 20_000
        j += 1
      end
      i += 1
    end
    i
  end
end

def main(seconds)
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds / 2.0
  Worker.new(24).run(deadline)
end

main(Float(ARGV[0] || "2"))
